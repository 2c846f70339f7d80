/**
 * A stand-in GPT for rollout tests: after "\nA:" it writes, one character per token step, the
 * response `respond` gives for the text fed so far (putting a large logit on its next character),
 * and EOS once that response is written or the text fed has left it. Whatever the environment
 * inserts is read like any other fed token, so a script can depend on a tool's output.
 */
import * as tf from '@tensorflow/tfjs-core';
import { BASE_MODEL_CONFIG } from '../src/core/model/config';
import type { GPT, KVCache } from '../src/core/model/gpt';
import { decode, encode, EOS, VOCAB_SIZE } from '../src/core/tokenizer';

export interface ScriptedPolicyOptions {
  /** The value head's estimate at every position, or as a function of the tokens fed so far. */
  value?: number | ((fed: number[]) => number);
  /** Called at every token step, before the step's logits are made. */
  onStep?: () => void;
}

export function scriptedPolicy(respond: (fedText: string) => string, options: ScriptedPolicyOptions = {}): GPT {
  const fed: number[][] = [];
  const stepOnce = (tokens: Int32Array) => {
    options.onStep?.();
    const logits = new Float32Array(tokens.length * VOCAB_SIZE);
    tokens.forEach((token, b) => {
      fed[b].push(token);
      const text = decode(fed[b]);
      let next = EOS;
      if (text.includes('\nA:')) {
        const response = text.slice(text.indexOf('\nA:') + 3);
        const script = respond(text);
        if (response.length < script.length && script.startsWith(response)) next = encode(script[response.length])[0];
      }
      logits[b * VOCAB_SIZE + next] = 40;
    });
    const { value = 0 } = options;
    const values = fed.map((row) => (typeof value === 'number' ? value : value(row)));
    return { logits: tf.tensor2d(logits, [tokens.length, VOCAB_SIZE]), values: tf.tensor1d(values) };
  };
  return {
    // The real model's config: rollouts check the prompt and the answer cap against its context.
    config: BASE_MODEL_CONFIG,
    newCache(batchSize: number): KVCache {
      fed.length = 0;
      for (let b = 0; b < batchSize; b++) fed[b] = [];
      const cache = {
        batchSize,
        length: 0,
        keepRows(rows: readonly number[]) {
          const kept = rows.map((r) => fed[r]);
          fed.length = 0;
          fed.push(...kept);
          cache.batchSize = rows.length;
        },
        dispose() {},
      };
      return cache;
    },
    step: (_cache: KVCache, tokens: Int32Array) => stepOnce(tokens),
    /** As the model's: what stepping through the rows' tokens one position at a time gives at the last. */
    prefill(_cache: KVCache, rows: readonly Int32Array[]) {
      let last = stepOnce(Int32Array.from(rows, (row) => row[0]));
      for (let t = 1; t < rows[0].length; t++) {
        tf.dispose([last.logits, last.values]);
        last = stepOnce(Int32Array.from(rows, (row) => row[t]));
      }
      return last;
    },
  } as unknown as GPT;
}
