/**
 * The memory estimate of a step and the refusal of a batch too large for it: hand-computed bytes,
 * the bound checked against what generation allocates, and the refusal in the screen's words.
 */
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { Episode, episodeConfig } from '../src/core/rollout/episode';
import { generateRollouts } from '../src/core/rollout/rollout';
import { configErrors, EXPERIMENT_PROPERTIES, PRESETS, sandboxRunOptions } from '../src/core/experiment';
import {
  BATCH_KNOB_LABELS,
  batchMemoryError,
  GENERATION_MEMORY_BUDGET,
  generationBytes,
  kvCacheBytes,
  mostAnswersAtOnce,
  outOfMemoryMessage,
} from '../src/core/memoryEstimate';
import { BASE_MODEL_CONFIG } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import { Random } from '../src/core/random';
import { Trainer } from '../src/core/rl/trainer';
import { formatPrompt } from '../src/core/tasks/prompt';
import { KINDS, type Kind } from '../src/core/tasks/problem';
import { ARITHMETIC_ONLY } from '../src/core/tasks/splits';
import { stepProblems } from '../src/core/tasks/stepProblems';
import { encode } from '../src/core/tokenizer';
import { useNodeBackend } from '../src/node/tfBackend';
import { printsOne } from './tinyTrainer';

const REFUSAL_256_BY_64 =
  'Prompts per step × Answers per question = 256 × 64 = 16,384 answers written at once would need about 32 GB of memory; ' +
  'the lab holds about 3.2 GB (1,638 answers at once): lower one of them';

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe('memory estimate', () => {
  it('counts the KV cache of the base model by hand: 16,384 rows x 512 positions x 3 layers x 64 x 2 (keys, values) x 4 bytes', () => {
    expect(kvCacheBytes(1)).toBe(786_432);
    expect(kvCacheBytes(16_384)).toBe(12_884_901_888);
    expect(generationBytes(16_384)).toBe(32_212_254_720);
    expect(kvCacheBytes(10, { ...BASE_MODEL_CONFIG, contextLength: 64, nLayer: 1, nEmbd: 16 })).toBe(10 * 64 * 16 * 8);
    expect(GENERATION_MEMORY_BUDGET).toBe(3_221_225_472);
    expect(mostAnswersAtOnce()).toBe(1638);
    expect(mostAnswersAtOnce({ ...BASE_MODEL_CONFIG, nEmbd: 128 })).toBe(819);
  });

  // The shortest prompts (arithmetic) and the longest (chains), whose prefill peaks highest.
  it.each([
    ['arithmetic', ARITHMETIC_ONLY],
    ['chain', Object.fromEntries(KINDS.map((kind) => [kind, kind === 'chain' ? 1 : 0])) as Record<Kind, number>],
  ])('bounds what a step generation of %s prompts allocates (tfjs count), which is more than the preallocated cache', async (_kind, kindMix) => {
    const model = GPT.init(BASE_MODEL_CONFIG, 3);
    const config = { ...PRESETS.classroom, maxResponseTokens: 16, kindMix };
    const episodes = stepProblems(new Random(1), config, 24, 'independent').map((p) => new Episode(encode(formatPrompt(p)), episodeConfig(config, config.nmax)));
    const before = tf.memory().numBytes;
    const profile = await tf.profile(async () => {
      await generateRollouts(model, episodes, {
        temperature: 1,
        rng: new Random(2),
        sandbox: printsOne,
        runOptions: sandboxRunOptions(config),
      });
    });
    const allocated = profile.peakBytes - before;
    expect(allocated).toBeGreaterThan(kvCacheBytes(episodes.length));
    expect(allocated).toBeLessThanOrEqual(generationBytes(episodes.length));
    expect(tf.memory().numBytes).toBe(before);
    model.dispose();
  });
});

describe('a batch too large is refused up front', () => {
  it('keeps every preset, and a batch up to the bound', () => {
    for (const preset of Object.values(PRESETS)) expect(configErrors(preset)).toEqual({});
    expect(configErrors({ ...PRESETS.classroom, promptsPerStep: 204, groupSize: 8 })).toEqual({});
    expect(configErrors({ ...PRESETS.classroom, promptsPerStep: 25, groupSize: 64 })).toEqual({});
  });

  it('refuses 256 x 64 (and one answer past the bound) with the reason in the knobs\' words, on the prompts field', () => {
    expect(configErrors({ ...PRESETS.classroom, promptsPerStep: 256, groupSize: 64 })).toEqual({ promptsPerStep: REFUSAL_256_BY_64 });
    expect(batchMemoryError({ promptsPerStep: 205, groupSize: 8 })).toMatch(/^Prompts per step × Answers per question = 205 × 8 = 1,640 answers written at once would need about 3.2 GB/);
    expect(batchMemoryError({ promptsPerStep: 1638, groupSize: 1 })).toBeNull();
    expect(batchMemoryError({ promptsPerStep: 1639, groupSize: 1 })).not.toBeNull();
    // A knob out of its own range is named for that; the product is not judged then.
    expect(configErrors({ ...PRESETS.classroom, promptsPerStep: 256, groupSize: 65 })).toEqual({ groupSize: 'groupSize must be between 1 and 64' });
  });

  it('names the knobs as the lab labels them', () => {
    const label = (key: string) => EXPERIMENT_PROPERTIES.find((p) => p.key === key)?.label ?? '';
    expect(label('promptsPerStep')).toBe(BATCH_KNOB_LABELS.promptsPerStep);
    expect(label('groupSize').startsWith(BATCH_KNOB_LABELS.groupSize)).toBe(true);
  });

  it('refuses a trainer whose model is too wide for the batch, though configErrors passes it for the base model', () => {
    const wide = GPT.init({ ...BASE_MODEL_CONFIG, nEmbd: 128 }, 1);
    const before = tf.memory().numTensors;
    const config = { ...PRESETS.classroom, promptsPerStep: 16, groupSize: 64 };
    expect(configErrors(config)).toEqual({});
    expect(() => new Trainer(wide, config, printsOne)).toThrow(
      'Prompts per step × Answers per question = 16 × 64 = 1,024 answers written at once would need about 4 GB of memory; the lab holds about 3.2 GB (819 answers at once): lower one of them',
    );
    expect(tf.memory().numTensors).toBe(before);
    wide.dispose();
  });
});

describe('outOfMemoryMessage', () => {
  it('turns a backend\'s allocation failure into what to change, and leaves other failures alone', () => {
    const knobs = { promptsPerStep: 256, groupSize: 64 };
    expect(outOfMemoryMessage(new Error('memory access out of bounds'), knobs, 1)).toBe(
      'step 1 ran out of memory (memory access out of bounds) with Prompts per step × Answers per question = 256 × 64 = 16,384 answers written at once: lower one of them; the run stays at step 0',
    );
    expect(outOfMemoryMessage(new RangeError('Array buffer allocation failed'), knobs, 3)).toMatch(/^step 3 ran out of memory .* the run stays at step 2$/);
    expect(outOfMemoryMessage(new Error('Failed to allocate texture'), knobs, 1)).not.toBeNull();
    expect(outOfMemoryMessage(new Error('the sandbox crashed'), knobs, 1)).toBeNull();
  });
});
