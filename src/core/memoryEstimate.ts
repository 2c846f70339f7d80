/**
 * How much memory a step needs, and whether the lab can hold it. A step writes promptsPerStep x
 * groupSize answers at once through one KV cache (env/rollout.ts), allocated for the model's whole
 * context on wasm and WebGPU (model/decoding.ts); the rest of a step is cut into bounded chunks
 * (rl/minibatchGradients.ts, rl/policyUpdate.ts), so that batch decides whether a setting fits.
 */
import { BASE_MODEL_CONFIG, type GPTConfig } from './model/config';

/** Keys and values (2) of every layer at every position of the context, 4-byte floats, for `answers` rows. */
export function kvCacheBytes(answers: number, model: GPTConfig = BASE_MODEL_CONFIG): number {
  return answers * model.contextLength * model.nLayer * model.nEmbd * 2 * 4;
}

/**
 * The peak of a step's generation, per byte of its cache. Two moments peak, measured with tf.profile
 * on the base model in Node's wasm: the prefill of the prompts (its activations, then the cache it
 * fills), 2.34 times the cache for 77-token prompts (the longest, a chain question); and the copy of
 * the rows kept, made beside the cache when answers finish, 2.02 times at 256 to 2,400 answers of the
 * classroom's former mix, the retool preset's (2.24 at 32, where the weights weigh). Rounded up to cover both.
 */
export const GENERATION_BYTES_PER_CACHE_BYTE = 2.5;

export function generationBytes(answers: number, model: GPTConfig = BASE_MODEL_CONFIG): number {
  return GENERATION_BYTES_PER_CACHE_BYTE * kvCacheBytes(answers, model);
}

/**
 * What a step's generation may take. tfjs's wasm heap (the backend the CLI and most browsers train
 * on) stops at 4 GiB, where an allocation fails as "memory access out of bounds" (256 x 64 answers
 * did, after 85 s); a quarter is left to the weights, the optimizer, the update and the heap's
 * fragments. On the base model this is 1,638 answers (2,048 and 2,400 of the classroom's former mix generated
 * in Node, peaking at 3.26 and 3.82 GB).
 */
export const GENERATION_MEMORY_BUDGET = 3 * 2 ** 30;

/** The most answers a step can write at once within GENERATION_MEMORY_BUDGET. */
export function mostAnswersAtOnce(model: GPTConfig = BASE_MODEL_CONFIG): number {
  return Math.floor(GENERATION_MEMORY_BUDGET / generationBytes(1, model));
}

/** The knobs' labels on the lab's screen (experiment.ts's EXPERIMENT_PROPERTIES; a test keeps them equal). */
export const BATCH_KNOB_LABELS = { promptsPerStep: 'Prompts per step', groupSize: 'Answers per question' } as const;

type BatchKnobs = { promptsPerStep: number; groupSize: number };

const count = (n: number) => n.toLocaleString('en-US');
const gigabytes = (bytes: number) => `${Number((bytes / 1e9).toPrecision(2))} GB`;

function batchWords({ promptsPerStep, groupSize }: BatchKnobs): string {
  return `${BATCH_KNOB_LABELS.promptsPerStep} × ${BATCH_KNOB_LABELS.groupSize} = ${promptsPerStep} × ${groupSize} = ${count(promptsPerStep * groupSize)} answers written at once`;
}

/** Why a step's batch is too large for the lab to hold, in the screen's words; null when it fits. */
export function batchMemoryError(config: BatchKnobs, model: GPTConfig = BASE_MODEL_CONFIG): string | null {
  const answers = config.promptsPerStep * config.groupSize;
  const most = mostAnswersAtOnce(model);
  if (answers <= most) return null;
  return (
    `${batchWords(config)} would need about ${gigabytes(generationBytes(answers, model))} of memory; ` +
    `the lab holds about ${gigabytes(GENERATION_MEMORY_BUDGET)} (${count(most)} answers at once): lower one of them`
  );
}

/** What the backends say when an allocation fails: wasm's heap, a JS buffer, WebGL and WebGPU. */
const OUT_OF_MEMORY = /memory access out of bounds|out of memory|allocation failed|failed to allocate|\bOOM\b|Invalid typed array length/i;

/** A step that ran out of memory, in plain words with what to change; null for any other failure. */
export function outOfMemoryMessage(error: unknown, config: BatchKnobs, step: number): string | null {
  const message = error instanceof Error ? error.message : String(error);
  if (!OUT_OF_MEMORY.test(message)) return null;
  return `step ${step} ran out of memory (${message}) with ${batchWords(config)}: lower one of them; the run stays at step ${step - 1}`;
}
