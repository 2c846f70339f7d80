/**
 * Batched rollouts: the whole batch advances one token per step through the KV cache. Each
 * sequence feeds from its own queue (BOS, its prompt, then each sampled token, then any tool
 * output the environment inserts), so prompts of different lengths and tool outputs need no
 * padding: a sequence samples whenever its queue runs dry. A token step reads back the logits
 * only; the value head's estimates stay on the device and come back in one read at the end.
 *
 * Code runs while the batch generates. A call starts the moment its closing fence is sampled; the
 * row keeps its slot and spends the next token step feeding that fence, while every other row goes
 * on sampling; the result is awaited only before the step that needs the first output token. A call
 * faster than one token step (nearly all: about 1 ms against tens of ms) never stalls the batch; a
 * slower one stalls it there, because every row advances one cache position per step. The tokens,
 * and the random draws, are exactly those of a rollout that waited for each call at once.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GPT, KVCache } from '../model/gpt';
import { sampleFromLogits } from '../model/sampling';
import { Episode, type EpisodeConfig } from '../env/episode';
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

export interface RolloutSettings {
  episode: EpisodeConfig;
  /** 0 = greedy. */
  temperature: number;
  rng: Random;
  sandbox: PythonSandbox;
  runOptions: RunOptions;
}

export interface RolloutTiming {
  /** Wall time not spent blocked on the sandbox. */
  generateSeconds: number;
  /** Wall time the batch stood still waiting for a code call's result. */
  executeSeconds: number;
  /** Summed duration of every call, overlapped or not. */
  callSeconds: number;
  calls: number;
  tokenSteps: number;
}

/** A call under way. Its outcome is caught at once, so a failure waits, unhandled by nobody, for its await. */
interface PendingCall {
  settled: Promise<{ result: RunResult } | { error: unknown }>;
}

function startCall(sandbox: PythonSandbox, code: string, options: RunOptions, timing: { callMs: number }): PendingCall {
  const started = performance.now();
  const settled = sandbox.run(code, options).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  return { settled: settled.finally(() => (timing.callMs += performance.now() - started)) };
}

/**
 * One token step of the whole batch: feeds `feed` through the cache and samples the next token of
 * every row from one readback of the logits. The value head's estimates [B] are returned as a
 * tensor, still on the device, for the caller to read later and dispose.
 */
export async function decodeStep(
  model: GPT,
  cache: KVCache,
  feed: Int32Array,
  temperature: number,
  rng: Random,
): Promise<{ tokens: Int32Array; logProbs: Float32Array; values: tf.Tensor1D }> {
  const { logits, values } = model.step(cache, feed);
  try {
    return { ...sampleFromLogits((await logits.data()) as Float32Array, feed.length, temperature, rng), values };
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

export async function generateRollouts(
  model: GPT,
  promptIds: number[][],
  settings: RolloutSettings,
): Promise<{ rollouts: Rollout[]; timing: RolloutTiming }> {
  const batch = promptIds.length;
  const rollouts: Rollout[] = promptIds.map((ids) => ({ episode: new Episode(ids, settings.episode), logProbs: [], values: [] }));
  const queues: number[][] = promptIds.map((ids) => [BOS, ...ids]);
  const feed = new Int32Array(batch);
  const cache = model.newCache(batch);
  const started = performance.now();
  let executeMs = 0;
  const calls = { callMs: 0, count: 0 };
  let tokenSteps = 0;
  const keptValues: tf.Tensor1D[] = [];
  // Where each kept estimate goes: rollouts[b].values[index] = row b of keptValues[step].
  const valueSlots: { step: number; b: number; index: number }[] = [];
  const pending = new Map<number, PendingCall>();
  try {
    while (rollouts.some((r, b) => !r.episode.done || queues[b].length > 0)) {
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
      for (let b = 0; b < batch; b++) feed[b] = queues[b].length > 0 ? queues[b].shift()! : PAD;
      const sampling = rollouts.map((r, b) => !r.episode.done && queues[b].length === 0 && !pending.has(b));
      tokenSteps++;
      if (!sampling.some(Boolean)) {
        // Every row is reading its prompt or a tool output, or feeding a fence: nothing to sample or read back.
        const skipped = model.step(cache, feed);
        skipped.logits.dispose();
        skipped.values.dispose();
        continue;
      }
      const sampled = await decodeStep(model, cache, feed, settings.temperature, settings.rng);
      const valueStep = keptValues.push(sampled.values) - 1;

      for (let b = 0; b < batch; b++) {
        if (!sampling[b]) continue;
        const token = sampled.tokens[b];
        const rollout = rollouts[b];
        rollout.logProbs.push(sampled.logProbs[b]);
        valueSlots.push({ step: valueStep, b, index: rollout.values.push(0) - 1 });
        const action = rollout.episode.pushPolicyToken(token);
        if (action.type === 'done') continue;
        queues[b].push(token);
        if (action.type === 'execute') {
          pending.set(b, startCall(settings.sandbox, action.code, settings.runOptions, calls));
          calls.count++;
        }
      }
    }
    const values = await readKeptValues(keptValues);
    for (const { step, b, index } of valueSlots) rollouts[b].values[index] = values[step * batch + b];
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
      callSeconds: calls.callMs / 1000,
      calls: calls.count,
      tokenSteps,
    },
  };
}
