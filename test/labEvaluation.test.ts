/**
 * The lab's held-out evaluation, worker side, in Node (wasm): the chunked job gives the report and the draws of
 * `npm run eval`'s function (a scripted policy, hand-counted figures; a random model's sampled tokens); through the LabSession, a checkpoint of a tiny random model is evaluated
 * in a model of its own with monotone progress, the CLI's report keys, no leaked tensor, the
 * training run untouched, a cancel, and bad settings refused with the field's message. The example
 * report in docs/retool.md names every key and the evaluation set's size.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import type { EvalReport } from '../src/core/eval/evalReport';
import { passAtOneReport } from '../src/core/eval/passAtOne';
import { PRESETS, type ExperimentConfig } from '../src/core/experiment';
import { deserializeCheckpoint, serializeCheckpoint } from '../src/core/run/checkpoint';
import type { GPTConfig } from '../src/core/model/config';
import { GPT } from '../src/core/model/gpt';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { evalSet, testSet } from '../src/core/tasks/splits';
import { problemDepth } from '../src/core/tasks/problem';
import { VOCAB_SIZE } from '../src/core/tokenizer';
import { passAtOneWithProgress, type EvaluationHooks } from '../src/trainerWorker/passAtOneJob';
import { checkpointEpisodeLimits } from '../src/core/eval/checkpointLimits';
import { DEFAULT_PASS_AT_ONE, parseNmaxList, passAtOneSettingsErrors } from '../src/trainerWorker/evaluationRequest';
import { LabSession } from '../src/trainerWorker/labSession';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import type { LabEvent } from '../src/trainerWorker/protocol';
import { useNodeBackend } from '../src/node/tfBackend';
import { scriptedPolicy } from './scriptedPolicy';

type Progress = Extract<LabEvent, { type: 'progress' }>;

const TINY: GPTConfig = { vocabSize: VOCAB_SIZE, contextLength: 96, nLayer: 1, nHead: 2, nEmbd: 16, mlpRatio: 2 };
/** The run config a tiny checkpoint carries: short answers, so the test set fits the tiny context. */
const TINY_RUN: ExperimentConfig = { ...PRESETS.quick, steps: 50, promptsPerStep: 2, groupSize: 2, minibatchSize: 4, maxResponseTokens: 12, maxOutputChars: 16, testEvery: 1000, samplesPerStep: 0, format: 'retool' };
/** The keys of `npm run eval`'s report and of each of its blocks (docs/retool.md). */
const REPORT_KEYS = ['blocks', 'checkpoint', 'format', 'k', 'maxOutputChars', 'maxResponseTokens', 'problemDepths', 'problems', 'seed', 'temperature', 'topP', 'wallSeconds'];
const BLOCK_KEYS = [
  'byDepth', 'byFamily', 'byKind', 'byTier', 'callsHistogram', 'callsPerResponse', 'callsPerResponseByDepth', 'codeLines', 'codePassRate', 'codeRatio', 'correctCodeCount',
  'invocationPosition', 'nmax', 'pass@1', 'perProblem', 'samples', 'selfCorrectedResponses', 'selfCorrectionShare', 'selfCorrections', 'singleCallShare',
  'singleCallShareByDepth', 'standardError',
];

/** An evaluation problem's solution prints its answer; any other code is a NameError. */
function testSetSandbox(): PythonSandbox & { runs: number } {
  const answers = new Map(evalSet().map((p) => [p.solution, p.answer]));
  return {
    runs: 0,
    async run(code: string): Promise<RunResult> {
      this.runs++;
      const answer = answers.get(code);
      const base = { stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
      return answer === undefined ? { ...base, ok: false, stdout: '', error: { type: 'NameError', message: 'x' } } : { ...base, ok: true, stdout: `${answer}\n` };
    },
    async close() {},
  };
}

/**
 * On each evaluation problem: a `<code>` block with the problem's solution, then the number the
 * interpreter printed, plus one on hard problems; -1 when nothing ran (Nmax 0). So at Nmax >= 1 the
 * 16 easy and 16 medium problems are right and the 560 hard ones wrong (pass@1 32/592); at Nmax 0
 * nothing is right.
 */
function scriptedRetoolModel(): GPT {
  const format = TOOL_FORMATS.retool;
  const byQuestion = new Map(evalSet().map((p) => [p.question, p]));
  return scriptedPolicy((text) => {
    const p = byQuestion.get(/Q: (.*)\nA:/.exec(text)![1])!;
    const code = ` ${format.codeOpen}\n${p.solution}\n${format.codeClose}`;
    const response = text.slice(text.indexOf('\nA:') + 3);
    if (response.length < code.length) return code;
    const output = /\n<interpreter>\n(-?\d+)\n<\/interpreter>\n/.exec(response);
    const answer = output === null ? -1 : Number(output[1]) + (p.tier === 'hard' ? 1 : 0);
    return `${code}${output === null ? '\n' : output[0]}Answer: ${answer}`;
  });
}

function hooksFor(sandbox: PythonSandbox, events: LabEvent[], shouldStop = () => false): EvaluationHooks {
  return { sandbox, emit: (e) => events.push(e), exclusive: (work) => work(), yieldToEvents: async () => undefined, shouldStop };
}

const progressOf = (events: LabEvent[]) => events.filter((e): e is Progress => e.type === 'progress');

function tinyCheckpoint(seed: number): CheckpointBlob {
  const model = GPT.init(TINY, seed);
  const blob = serializeCheckpoint(model, { kind: 'rl', config: TINY_RUN, step: 3 });
  model.dispose();
  return blob;
}

function newSession(events: LabEvent[]): LabSession {
  const blob = tinyCheckpoint(11);
  const { model, meta, fingerprint } = deserializeCheckpoint(blob.manifest, blob.weights);
  return new LabSession({ base: model, baseMeta: meta, baseFingerprint: fingerprint, sandbox: testSetSandbox(), emit: (e) => events.push(e) });
}

beforeAll(async () => {
  await useNodeBackend('wasm');
});

describe('evaluation settings', () => {
  it('takes ReTool protocol defaults and refuses each bad field with its message', () => {
    expect(DEFAULT_PASS_AT_ONE).toEqual({ nmaxList: [0, 1, 2, 4], k: 8, temperature: 1, topP: 0.7, seed: 0 });
    expect(passAtOneSettingsErrors(DEFAULT_PASS_AT_ONE)).toEqual({});
    expect(passAtOneSettingsErrors({ ...DEFAULT_PASS_AT_ONE, k: 1, topP: 1 })).toEqual({});
    expect(passAtOneSettingsErrors({ nmaxList: [], k: 0, temperature: -1, topP: 1.5, seed: 0.5 })).toEqual({
      nmaxList: 'give at least one Nmax value',
      k: 'k must be a whole number from 1 to 256',
      temperature: 'temperature must be a number from 0 to 5',
      topP: 'top-p must be a number above 0 and at most 1',
      seed: 'seed must be a whole number from 0 to 2147483647',
    });
    expect(passAtOneSettingsErrors({ ...DEFAULT_PASS_AT_ONE, topP: 0 }).topP).toBeDefined();
    expect(passAtOneSettingsErrors({ ...DEFAULT_PASS_AT_ONE, nmaxList: [0, 17] }).nmaxList).toBe('Nmax values must be whole numbers from 0 to 16');
    expect(passAtOneSettingsErrors({ ...DEFAULT_PASS_AT_ONE, nmaxList: [1, 1] }).nmaxList).toBe('each Nmax value once');
  });

  it('reads an Nmax list as typed', () => {
    expect(parseNmaxList('0, 1,2 ,4')).toEqual([0, 1, 2, 4]);
    expect(parseNmaxList('  ')).toEqual([]);
    expect(parseNmaxList('1,,2').map(Number.isNaN)).toEqual([false, true, false]);
    expect(passAtOneSettingsErrors({ ...DEFAULT_PASS_AT_ONE, nmaxList: parseNmaxList('1,x') }).nmaxList).toBeDefined();
  });

  it('takes the format and episode limits from the checkpoint, as the CLI does', () => {
    const classroom = PRESETS.classroom;
    expect(checkpointEpisodeLimits({ kind: 'rl', config: TINY_RUN })).toEqual({ format: 'retool', maxResponseTokens: 12, maxOutputChars: 16, sandboxTimeoutMs: TINY_RUN.sandboxTimeoutMs });
    expect(checkpointEpisodeLimits({ kind: 'sft', sft: { format: 'retool' } })).toEqual({
      format: 'retool', maxResponseTokens: classroom.maxResponseTokens, maxOutputChars: classroom.maxOutputChars, sandboxTimeoutMs: classroom.sandboxTimeoutMs,
    });
    expect(checkpointEpisodeLimits({ kind: 'base' }).format).toBe('zerotir');
    expect(checkpointEpisodeLimits({ config: { format: 'mystery' } }).format).toBe('zerotir');
    // A checkpoint file's format is looked up as an own property: Object.prototype's members are no formats.
    for (const format of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(checkpointEpisodeLimits({ config: { format } }).format).toBe('zerotir');
      expect(checkpointEpisodeLimits({ kind: 'sft', sft: { format } }).format).toBe('zerotir');
    }
  });
});

describe("docs/retool.md's example report", () => {
  it('names every key of the report and of a block, and the size of the evaluation set', () => {
    const doc = readFileSync(join(__dirname, '..', 'docs', 'retool.md'), 'utf8');
    const example = doc.slice(doc.indexOf('```json', doc.indexOf('Output (`FILE`')), doc.indexOf('```\n', doc.indexOf('Output (`FILE`') + 10) + 4);
    const keys = new Set([...example.matchAll(/"([\w@]+)":/g)].map((m) => m[1]));
    expect([...REPORT_KEYS, ...BLOCK_KEYS].filter((key) => !keys.has(key))).toEqual([]);
    expect(example).toContain(`"problems": ${evalSet().length}`);
  });
});

describe('passAtOneWithProgress', () => {
  it('gives, chunk by chunk with progress, the report of npm run eval\'s function', async () => {
    const settings = { nmaxList: [0, 1], k: 4, temperature: 1, topP: 0.7, seed: 3 };
    const meta = { kind: 'sft', sft: { format: 'retool' } };
    const events: LabEvent[] = [];
    const before = tf.memory().numTensors;
    // The test set (160 problems) keeps a scripted policy's decoding short; the default set is evalSet's 592.
    const report = (await passAtOneWithProgress(scriptedRetoolModel(), meta, { ...settings, label: 'scripted' }, hooksFor(testSetSandbox(), events), testSet()))!;
    expect(tf.memory().numTensors).toBe(before);
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    expect(report).toMatchObject({
      checkpoint: 'scripted', format: 'retool', problems: 160, k: 4, temperature: 1, topP: 0.7, seed: 3,
      maxResponseTokens: PRESETS.classroom.maxResponseTokens, maxOutputChars: 64,
    });
    expect(report.blocks.map((b) => Object.keys(b).sort())).toEqual([BLOCK_KEYS, BLOCK_KEYS]);
    const [none, one] = report.blocks;
    expect(none).toMatchObject({ nmax: 0, samples: 640, 'pass@1': 0, codeRatio: 1, callsPerResponse: 0, correctCodeCount: 0 });
    expect(one).toMatchObject({ nmax: 1, samples: 640, 'pass@1': 32 / 160, byTier: { easy: 1, medium: 1, hard: 0 }, correctCodeCount: 640, singleCallShare: 1 });
    expect(one.byKind).toEqual({ arithmetic: 0.5, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 });
    expect(report.problemDepths).toEqual(testSet().map(problemDepth));

    const cli = (await passAtOneReport(scriptedRetoolModel(), testSet(), { ...settings, label: 'scripted' }, checkpointEpisodeLimits(meta), testSetSandbox()))!;
    expect({ ...report, wallSeconds: 0 }).toEqual({ ...cli, wallSeconds: 0 });

    // k 4: 16 problems (64 answers) a chunk, 10 chunks per Nmax of the 160, 20 in all, after a 0 of 20.
    const progress = progressOf(events);
    expect(progress.map((e) => [e.task, e.done, e.total])).toEqual(Array.from({ length: 21 }, (_, i) => ['evaluate', i, 20]));
    expect(progress[0].etaSeconds).toBeNull();
    expect(progress.slice(1).every((e) => e.etaSeconds !== null && e.etaSeconds >= 0)).toBe(true);
    expect(progress.at(-1)).toMatchObject({ etaSeconds: 0, detail: 'Nmax 1: 160/160 problems' });
  });

  it('draws, from a random model, the tokens npm run eval\'s function draws for the same seed (and others for another)', async () => {
    const gpt = GPT.init(TINY, 5);
    /** The model, noting every token fed to it after the prompts (the sampled ones and the tool's). */
    const recording = () => {
      const fed: number[] = [];
      const model = Object.create(gpt) as GPT;
      // Caches must be the model's own (the nucleus filter wraps the same way).
      model.newCache = (batchSize) => gpt.newCache(batchSize);
      model.prefill = (cache, rows) => gpt.prefill(cache, rows);
      model.step = (cache, tokens) => {
        fed.push(...tokens);
        return gpt.step(cache, tokens);
      };
      return { model, fed };
    };
    // k 4: 16 problems a chunk, so the 24 problems take two chunks, each with its own seed.
    const problems = testSet().slice(0, 24);
    const settings = { nmaxList: [0, 1], k: 4, temperature: 1, topP: 0.7, seed: 7, label: 'tiny' };
    const meta = { kind: 'rl', config: TINY_RUN };
    const lab = recording();
    const labReport = (await passAtOneWithProgress(lab.model, meta, settings, hooksFor(testSetSandbox(), []), problems))!;
    const cli = recording();
    const cliReport = (await passAtOneReport(cli.model, problems, settings, checkpointEpisodeLimits(meta), testSetSandbox()))!;
    const other = recording();
    await passAtOneReport(other.model, problems, { ...settings, seed: 8 }, checkpointEpisodeLimits(meta), testSetSandbox());
    gpt.dispose();
    expect(lab.fed.length).toBeGreaterThan(2 * 96);
    expect(lab.fed).toEqual(cli.fed);
    expect(labReport.blocks).toEqual(cliReport.blocks);
    expect(other.fed).not.toEqual(cli.fed);
  });

  it('stops between chunks when asked, with nothing leaked', async () => {
    const events: LabEvent[] = [];
    let chunks = 0;
    const hooks = { ...hooksFor(testSetSandbox(), events, () => chunks >= 2), yieldToEvents: async () => void chunks++ };
    const before = tf.memory().numTensors;
    const report = await passAtOneWithProgress(scriptedRetoolModel(), {}, { ...DEFAULT_PASS_AT_ONE, label: 'x' }, hooks);
    expect(report).toBeNull();
    expect(progressOf(events).map((e) => e.done)).toEqual([0, 1, 2]);
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('LabSession.evaluatePassAtOne', () => {
  it('evaluates a checkpoint in a model of its own: the CLI report, monotone progress, the run untouched, no leak', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    await session.startRun('run-t', TINY_RUN, { checkpoint: tinyCheckpoint(11), step: 3 });
    const runBefore = await session.saveCheckpoint();
    const tensorsBefore = tf.memory().numTensors;
    const request = { checkpoint: tinyCheckpoint(12), label: 'tiny @3', nmaxList: [0, 1], k: 1, temperature: 1, topP: 0.7, seed: 2 };

    const report = (await session.evaluatePassAtOne(request))!;
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    expect(Object.keys(report).sort()).toEqual(REPORT_KEYS);
    // The limits are the checkpoint's run config's, not the classroom's.
    expect(report).toMatchObject({ checkpoint: 'tiny @3', format: 'retool', problems: 592, k: 1, maxResponseTokens: 12, maxOutputChars: 16 });
    expect(report.blocks.map((b) => [b.nmax, b.samples, Object.keys(b).sort()])).toEqual([[0, 592, BLOCK_KEYS], [1, 592, BLOCK_KEYS]]);
    for (const block of report.blocks) {
      expect(block['pass@1']).toBeGreaterThanOrEqual(0);
      expect(block['pass@1']).toBeLessThanOrEqual(1);
      expect(block.callsHistogram.reduce((a, b) => a + b, 0)).toBe(592);
    }
    const progress = progressOf(events);
    // k 1: 64 problems a chunk, 10 chunks per Nmax of the 592 (the last of 16), 20 in all.
    expect(progress.map((e) => e.done)).toEqual(Array.from({ length: 21 }, (_, i) => i));
    expect(new Set(progress.map((e) => e.total))).toEqual(new Set([20]));

    const runAfter = await session.saveCheckpoint();
    expect(Buffer.from(runAfter.weights).equals(Buffer.from(runBefore.weights))).toBe(true);
    expect(session.currentRunId).toBe('run-t');

    // Same request, same draws.
    const again = (await session.evaluatePassAtOne(request))!;
    expect(again.blocks).toEqual(report.blocks);
    await session.dispose();
  });

  it('is cancelled after its current chunk, refused while training, and refuses bad settings', async () => {
    const events: LabEvent[] = [];
    const session = newSession(events);
    const request = { checkpoint: tinyCheckpoint(12), label: 'tiny', nmaxList: [0, 1, 2, 3], k: 1, temperature: 1, topP: 0.7, seed: 0 };
    const tensorsBefore = tf.memory().numTensors;
    let cancelling: Promise<void> | null = null;
    const evaluation = session.evaluatePassAtOne(request);
    // A cancel message arriving once the first chunk is reported.
    const waitForFirst = async () => {
      while (!progressOf(events).some((e) => e.done === 1)) await new Promise((resolve) => setTimeout(resolve, 1));
      cancelling = session.cancelEvaluation();
    };
    await waitForFirst();
    expect(await evaluation).toBeNull();
    await cancelling;
    expect(progressOf(events).at(-1)!.done).toBeLessThan(4);
    expect(tf.memory().numTensors).toBe(tensorsBefore);

    await session.startRun('run-busy', TINY_RUN, { checkpoint: tinyCheckpoint(11), step: 1 });
    const training = session.train();
    await expect(session.evaluatePassAtOne(request)).rejects.toThrow('the worker is busy training; pause it first');
    await session.pause();
    await training;

    await expect(session.evaluatePassAtOne({ ...request, k: 0, topP: 2 })).rejects.toThrow(
      'invalid evaluation settings: k must be a whole number from 1 to 256; top-p must be a number above 0 and at most 1',
    );
    await expect(session.evaluatePassAtOne({ ...request, nmaxList: [] })).rejects.toThrow('give at least one Nmax value');
    const result: EvalReport | null = await session.evaluatePassAtOne({ ...request, nmaxList: [1] });
    expect(result?.blocks.map((b) => b.nmax)).toEqual([1]);
    await session.dispose();
  });

  it('names the model a cold-started run began from as its checkpoints\' base', async () => {
    const session = newSession([]);
    const coldStart = (() => {
      const model = GPT.init(TINY, 4);
      const blob = serializeCheckpoint(model, { kind: 'sft', sft: { format: 'retool' } });
      model.dispose();
      return blob;
    })();
    await session.startRun('run-cold', { ...TINY_RUN, steps: 2 }, { checkpoint: coldStart, step: 0 });
    await session.step();
    const saved = await session.saveCheckpoint();
    expect((saved.manifest as { meta: { base: unknown } }).meta.base).toEqual({ kind: 'sft', sft: { format: 'retool' } });
    // A run continued from that checkpoint keeps naming the cold start.
    await session.startRun('run-cold-2', { ...TINY_RUN, steps: 2 }, { checkpoint: saved, step: 1, reference: coldStart });
    const continued = await session.saveCheckpoint();
    expect((continued.manifest as { meta: { base: unknown } }).meta.base).toEqual({ kind: 'sft', sft: { format: 'retool' } });
    await session.dispose();
  });
});
