/**
 * Batched rollouts: the whole batch advances one token per step through the KV cache. Each
 * sequence feeds from its own queue (BOS, its prompt, then each sampled token, then any tool
 * output the environment inserts), so prompts of different lengths and tool outputs need no
 * padding: a sequence samples whenever its queue runs dry. The prompts go in together as far as the
 * shortest one goes, in one causal pass (GPT.prefill). A token step reads back what sampling needs
 * only; the value head's estimates stay on the device and come back in one read at the end.
 * Finished sequences leave the cache (keepRows), since a step costs in proportion to its rows.
 *
 * Code runs while the batch generates. A call starts the moment its closing fence is sampled; the
 * row keeps its slot and spends the next token step feeding that fence, while every other row goes
 * on sampling; the result is awaited only before the step that needs the first output token. A call
 * faster than one token step (nearly all: about 1 ms against 5 to 15 ms) never stalls the batch; a
 * slower one stalls it there, because every row advances one cache position per step. The tokens,
 * and the random draws, are exactly those of a rollout that waited for each call at once.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT, KVCache } from '../model/gpt';
import { sampleTokens } from '../model/sampling';
import type { Episode } from './episode';
import type { PythonSandbox, RunOptions, RunResult } from '../sandbox/protocol';
import type { Random } from '../random';
import { BOS, PAD } from '../tokenizer';

export interface Rollout {
  episode: Episode;
  /** Per response token: log-prob under the sampling policy (0 at environment tokens). */
  logProbs: number[];
  /** Per response token: the value head's estimate before the token (0 at environment tokens). */
  values: number[];
}

/** How the batch is sampled and where its code runs; what each episode allows (its Nmax, its caps) is the episode's own. */
export interface RolloutSettings {
  /** 0 = greedy. */
  temperature: number;
  rng: Random;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
  /**
   * Asked before every model call: true ends the rollout with RolloutStopped (the lab's Pause, which
   * a step of thousands of answers would otherwise make wait for minutes).
   */
  shouldStop?: () => Promise<boolean>;
  /**
   * Called after every token step and every tool output that arrives, with the episodes so far:
   * the lab's "Ask the model" shows one answer as it is written. It only reads.
   */
  onProgress?: (episodes: readonly Episode[]) => void;
}

/** A rollout ended by its shouldStop before it finished; its tensors are freed, its calls abandoned. */
export class RolloutStopped extends Error {
  constructor() {
    super('the rollout was stopped');
    this.name = 'RolloutStopped';
  }
}

export interface RolloutTiming {
  /** Wall time not spent blocked on the sandbox. */
  generateSeconds: number;
  /** Wall time the batch stood still waiting for a code call's result (calls overlap generation otherwise). */
  executeSeconds: number;
  /** Model calls: a prefill of the prompts, then one per token step. */
  tokenSteps: number;
}

/** A call under way. Its outcome is caught at once, so a failure is not an unhandled rejection while it waits to be awaited. */
interface PendingCall {
  settled: Promise<{ result: RunResult } | { error: unknown }>;
}

function startCall(sandbox: PythonSandbox, code: string, options: RunOptions): PendingCall {
  return {
    settled: sandbox.run(code, options).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    ),
  };
}

/**
 * One token step of the whole batch: feeds `feed` through the cache and samples the next token of
 * every row with one readback (of the logits, or on WebGPU of the tokens: sampling.ts). The value
 * head's estimates [B] are returned as a tensor, still on the device, for the caller to read later
 * and dispose.
 */
export async function decodeStep(
  model: GPT,
  cache: KVCache,
  feed: Int32Array,
  temperature: number,
  rng: Pick<Random, 'next'>,
): Promise<{ tokens: Int32Array; logProbs: Float32Array; values: tf.Tensor1D }> {
  return sampleFrom(model.step(cache, feed), temperature, rng);
}

/** The next token of every row from a model call's logits (disposed here); its values stay on the device. */
async function sampleFrom(
  { logits, values }: { logits: tf.Tensor2D; values: tf.Tensor1D },
  temperature: number,
  rng: Pick<Random, 'next'>,
): Promise<{ tokens: Int32Array; logProbs: Float32Array; values: tf.Tensor1D }> {
  try {
    return { ...(await sampleTokens(logits, temperature, rng)), values };
  } catch (error) {
    values.dispose();
    throw error;
  } finally {
    logits.dispose();
  }
}

/** Reads the estimates kept by decodeStep, one row of B per token step, in one readback; disposes them. */
export async function readKeptValues(kept: tf.Tensor1D[]): Promise<Float32Array> {
  if (kept.length === 0) return new Float32Array(0);
  const all = tf.concat(kept);
  try {
    return (await all.data()) as Float32Array;
  } finally {
    all.dispose();
  }
}

/** The longest response a model's context holds after BOS and a prompt of `promptTokens`. */
export function responseRoom(contextLength: number, promptTokens: number): number {
  return Math.max(0, contextLength - 1 - promptTokens);
}

/** Runs the episodes, each made by its caller with what it allows, to their ends as one batch. */
export async function generateRollouts(
  model: GPT,
  episodes: Episode[],
  settings: RolloutSettings,
): Promise<{ rollouts: Rollout[]; timing: RolloutTiming }> {
  const batch = episodes.length;
  // A run set up for a longer context than the model's (an old 256-token base with today's 400-token
  // cap) would otherwise fail midway, when the KV cache fills.
  const longestPrompt = Math.max(...episodes.map((e) => e.promptIds.length));
  const longestAnswer = Math.max(...episodes.map((e) => e.config.maxResponseTokens));
  const room = responseRoom(model.config.contextLength, longestPrompt);
  if (longestAnswer > room) {
    throw new Error(
      `the model's context (${model.config.contextLength} tokens) cannot hold a ${longestPrompt}-token prompt and an answer of up to ${longestAnswer}: ` +
        `set the answer cap (maxResponseTokens) to ${room} or less, or start from a model with a longer context`,
    );
  }
  const rollouts: Rollout[] = episodes.map((episode) => ({ episode, logProbs: [], values: [] }));
  const queues: number[][] = episodes.map((e) => [BOS, ...e.promptIds]);
  const cache = model.newCache(batch);
  // The rollout of each cache row. Finished rows leave the cache (keepRows): a step costs per row.
  let active = rollouts.map((_, b) => b);
  const started = performance.now();
  let executeMs = 0;
  let tokenSteps = 0;
  const keptValues: tf.Tensor1D[] = [];
  // Where each kept estimate goes: rollouts[b].values[index] = entry `row` of keptValues[step].
  const valueSlots: { step: number; row: number; b: number; index: number }[] = [];
  const pending = new Map<number, PendingCall>();
  // The sandbox brings every program back to one baseline with `random` seeded, so what a program
  // prints is a function of its text (the clock and the OS's entropy aside). Rows that write the same
  // program share one run of it: in a classroom step two thirds of the programs repeat one already in
  // the batch, most of them a group's rows answering the same question alike.
  const runs = new Map<string, PendingCall>();
  const finished = (b: number) => rollouts[b].episode.done && queues[b].length === 0 && !pending.has(b);
  try {
    for (;;) {
      // A row whose fence has been fed needs its call's output now.
      const due = [...pending.keys()].filter((b) => queues[b].length === 0);
      if (due.length > 0) {
        const waitStart = performance.now();
        const outcomes = await Promise.all(due.map((b) => pending.get(b)!.settled));
        executeMs += performance.now() - waitStart;
        due.forEach((b, i) => {
          pending.delete(b);
          const outcome = outcomes[i];
          if ('error' in outcome) throw outcome.error;
          const envTokens = rollouts[b].episode.pushToolResult(outcome.result);
          for (let j = 0; j < envTokens.length; j++) {
            rollouts[b].logProbs.push(0);
            rollouts[b].values.push(0);
          }
          // An episode that ended inside the output (length cap) has nothing left to feed.
          if (!rollouts[b].episode.done) queues[b].push(...envTokens);
        });
      }
      settings.onProgress?.(rollouts.map((r) => r.episode));
      const unfinished = active.filter((b) => !finished(b));
      if (unfinished.length === 0) break;
      if (settings.shouldStop && (await settings.shouldStop())) throw new RolloutStopped();
      // Dropping rows costs a gather per cached tensor: do it once a quarter of the rows are finished.
      if (active.length - unfinished.length >= active.length / 4) {
        cache.keepRows(unfinished.map((b) => active.indexOf(b)));
        active = unfinished;
      }
      // The first call takes every prompt as far as the shortest one goes, in one pass (prefill).
      const width = tokenSteps === 0 ? Math.min(...active.map((b) => queues[b].length)) : 1;
      const fed = active.map((b) => Int32Array.from(queues[b].length > 0 ? queues[b].splice(0, width) : [PAD]));
      const sampling = active.map((b) => !rollouts[b].episode.done && queues[b].length === 0 && !pending.has(b));
      const out = tokenSteps === 0 ? model.prefill(cache, fed) : model.step(cache, Int32Array.from(fed, (row) => row[0]));
      tokenSteps++;
      if (!sampling.some(Boolean)) {
        // Every row is reading its prompt or a tool output, or feeding a fence: nothing to sample or read back.
        out.logits.dispose();
        out.values.dispose();
        continue;
      }
      const sampled = await sampleFrom(out, settings.temperature, rowDraws(settings, batch, active));
      const valueStep = keptValues.push(sampled.values) - 1;

      active.forEach((b, row) => {
        if (!sampling[row]) return;
        const token = sampled.tokens[row];
        const rollout = rollouts[b];
        rollout.logProbs.push(sampled.logProbs[row]);
        valueSlots.push({ step: valueStep, row, b, index: rollout.values.push(0) - 1 });
        const action = rollout.episode.pushPolicyToken(token);
        if (action.type === 'done') return;
        queues[b].push(token);
        if (action.type === 'execute') {
          let run = runs.get(action.code);
          if (!run) runs.set(action.code, (run = startCall(settings.sandbox, action.code, settings.runOptions)));
          pending.set(b, run);
        }
      });
    }
    const values = await readKeptValues(keptValues);
    let offset = 0;
    const offsets = keptValues.map((t) => (offset += t.size) - t.size);
    for (const { step, row, b, index } of valueSlots) rollouts[b].values[index] = values[offsets[step] + row];
  } finally {
    cache.dispose();
    tf.dispose(keptValues);
  }
  const totalMs = performance.now() - started;
  return {
    rollouts,
    timing: {
      generateSeconds: (totalMs - executeMs) / 1000,
      executeSeconds: executeMs / 1000,
      tokenSteps,
    },
  };
}

/**
 * The random draws of one sampled token step: one per rollout of the batch, dropped rows included,
 * handed out to the rows still in the cache. So the draws a sequence gets do not depend on when
 * others finished (and at temperature 0, which draws nothing, nothing is drawn).
 */
function rowDraws(settings: RolloutSettings, batch: number, active: number[]): { next(): number } {
  if (settings.temperature === 0) return settings.rng;
  const draws = Array.from({ length: batch }, () => settings.rng.next());
  let row = 0;
  return { next: () => draws[active[row++]] };
}
