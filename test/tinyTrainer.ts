/**
 * Shared by the trainer tests: a model small enough to step in a second, a config whose every step
 * updates it, and a sandbox that prints 1 (a random model never writes a code block anyway).
 */
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { ARITHMETIC_ONLY } from '../src/core/tasks/splits';
import { VOCAB_SIZE } from '../src/core/tokenizer';

export const TINY_MODEL = { vocabSize: VOCAB_SIZE, contextLength: 64, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };

/** The classroom preset cut to 2 prompts x 4 answers of 24 tokens, with `changes` on top. */
export function tinyTrainerConfig(changes: Partial<ExperimentConfig> = {}): ExperimentConfig {
  return {
    ...PRESETS.classroom,
    seed: 7,
    promptsPerStep: 2,
    groupSize: 4,
    minibatchSize: 4,
    epochs: 2,
    maxResponseTokens: 24,
    // Arithmetic prompts: the longer questions of the other kinds would not leave 24 tokens in a context of 64.
    kindMix: ARITHMETIC_ONLY,
    // Keep every group, so each step updates even though a random model never answers right.
    filterLow: 0,
    filterHigh: 1,
    testEvery: 1000,
    learningRate: 1e-2,
    ...changes,
  };
}

export const printsOne: PythonSandbox = {
  async run(): Promise<RunResult> {
    return { ok: true, stdout: '1\n', stderr: '', timedOut: false, truncated: false, durationMs: 0 };
  },
  async close() {},
};
