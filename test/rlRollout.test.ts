import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import type { GPT } from '../src/core/model/gpt';
import { Random } from '../src/core/random';
import { Episode } from '../src/core/rollout/episode';
import { generateRollouts } from '../src/core/rollout/rollout';
import type { PythonSandbox, RunResult } from '../src/core/sandbox/protocol';
import { answerReward } from '../src/core/tasks/reward';
import { encode } from '../src/core/tokenizer';
import { scriptedPolicy } from './scriptedPolicy';
import { arithmeticProblem } from '../src/core/tasks/arithmeticFamilies';

const CODE = ' ```python\nprint(6*7)\n```';
const OUTPUT = '\n```output\n42\n```\n';
const SCRIPT = `${CODE}${OUTPUT}Answer: 42`;

/** A policy that always writes SCRIPT after "A:", whatever was inserted before. */
function scriptedModel(onStep?: () => void): GPT {
  return scriptedPolicy(() => SCRIPT, { value: 0.5, onStep });
}

/** What the stand-in sandboxes print for the programs these tests write. */
const ANSWERS: Record<string, string> = { 'print(6*7)': '42\n', 'print(6*8)': '48\n' };

/** A response that prints the question's product ("6*8") and answers it: it goes astray if fed another output. */
function echoScript(product: string): string {
  const value = product.split('*').reduce((a, b) => a * Number(b), 1);
  return ` \`\`\`python\nprint(${product})\n\`\`\`\n\`\`\`output\n${value}\n\`\`\`\nAnswer: ${value}`;
}

/** A policy that writes echoScript of its own question ("Q: 6*7?" or "Q: what 6*7?"). */
function questionEchoModel(onStep?: () => void): GPT {
  return scriptedPolicy((text) => echoScript(/Q: (?:what )?(\d\*\d)\?/.exec(text)![1]), { value: 0.5, onStep });
}

/** A sandbox that answers at once from ANSWERS, recording each program it runs. */
function answeringSandbox(calls: string[]): PythonSandbox {
  return {
    async run(code: string): Promise<RunResult> {
      calls.push(code);
      return { ok: true, stdout: ANSWERS[code] ?? '', stderr: '', timedOut: false, truncated: false, durationMs: 0.1 };
    },
    async close() {},
  };
}

/** Each prompt's episode as the trainer makes them (ZeroTIR fences, output cut at 64 characters): Nmax 2 and a 96-token cap unless said. */
function episodesOf(prompts: number[][], nmax = 2, maxResponseTokens = 96): Episode[] {
  return prompts.map((ids) => new Episode(ids, { format: TOOL_FORMATS.zerotir, nmax, maxResponseTokens, maxOutputChars: 64 }));
}

function settingsWith(sandbox: PythonSandbox) {
  return {
    temperature: 1,
    rng: new Random(3),
    sandbox,
    runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
  };
}

async function rollOnce(nmax: number, batch = 2) {
  const calls: string[] = [];
  const prompt = encode('Q: what is 6*7?\nA:');
  const { rollouts } = await generateRollouts(scriptedModel(), episodesOf(Array.from({ length: batch }, () => prompt), nmax), {
    temperature: 1,
    rng: new Random(3),
    sandbox: answeringSandbox(calls),
    runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
  });
  return { rollouts, calls };
}

describe('generateRollouts', () => {
  beforeAll(async () => {
    await tf.setBackend('wasm');
  });

  it('runs a closed python block in the sandbox and feeds its output back as environment tokens', async () => {
    const before = tf.memory().numTensors;
    const { rollouts, calls } = await rollOnce(2);
    expect(tf.memory().numTensors).toBe(before);
    // Both rows wrote the same program: it ran once, and each row was fed its output.
    expect(calls).toEqual(['print(6*7)']);
    for (const r of rollouts) {
      const ep = r.episode;
      expect(ep.responseText()).toBe(SCRIPT);
      expect(ep.endedWithEos).toBe(true);
      expect(answerReward(ep.responseText(), ep.endedWithEos, arithmeticProblem('x', 'hard', '6*7', 42))).toBe(1);
      // Policy tokens: the code, then the answer and EOS; the output block is the environment's.
      const expectedMask = [...CODE].map(() => 1).concat([...OUTPUT].map(() => 0), [...'Answer: 42'].map(() => 1), [1]);
      expect(ep.policyMask).toEqual(expectedMask);
      expect(r.logProbs).toHaveLength(ep.tokens.length);
      expect(r.values).toHaveLength(ep.tokens.length);
      ep.policyMask.forEach((m, i) => {
        if (m === 0) {
          expect(r.logProbs[i]).toBe(0);
          expect(r.values[i]).toBe(0);
        } else {
          expect(r.logProbs[i]).toBeCloseTo(0, 5);
          expect(r.values[i]).toBeCloseTo(0.5, 6);
        }
      });
    }
  });

  it('with Nmax 0 runs nothing: the model writes the fence and its own "output" as policy tokens', async () => {
    const { rollouts, calls } = await rollOnce(0, 1);
    expect(calls).toEqual([]);
    const ep = rollouts[0].episode;
    expect(ep.responseText()).toBe(SCRIPT);
    expect(ep.policyMask.every((m) => m === 1)).toBe(true);
    expect(ep.calls.every((c) => !c.executed)).toBe(true);
  });

  it('keeps generating the other rows while a call runs, and waits for it only when its output is due', async () => {
    // Row 0's prompt is 5 tokens shorter: it closes its code block 5 steps before row 1 does. The
    // rows write different programs (6*7, 6*8), so each runs.
    const prompts = [encode('Q: 6*7?\nA:'), encode('Q: what 6*8?\nA:')];
    let steps = 0;
    const stepsAtCall: number[] = [];
    const resolvers: { due: number; resolve: () => void }[] = [];
    const model = questionEchoModel(() => {
      steps++;
      for (const r of resolvers.filter((r) => r.due === steps)) r.resolve();
    });
    // Each call finishes only once the model has taken one more token step: a rollout that awaited
    // the call before stepping again would never finish.
    const gatedSandbox: PythonSandbox = {
      run(code: string) {
        stepsAtCall.push(steps);
        return new Promise<RunResult>((resolve) => {
          resolvers.push({ due: steps + 1, resolve: () => resolve({ ok: true, stdout: ANSWERS[code] ?? '', stderr: '', timedOut: false, truncated: false, durationMs: 1 }) });
        });
      },
      async close() {},
    };
    const { rollouts } = await generateRollouts(model, episodesOf(prompts), {
      temperature: 1,
      rng: new Random(3),
      sandbox: gatedSandbox,
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    expect(stepsAtCall).toHaveLength(2);
    expect(stepsAtCall[1] - stepsAtCall[0]).toBe(5);
    expect(rollouts.map((r) => r.episode.responseText())).toEqual([echoScript('6*7'), echoScript('6*8')]);
    for (const r of rollouts) expect(r.episode.endedWithEos).toBe(true);
    // Same tokens as a rollout whose calls return at once: waiting changed nothing but time.
    const { rollouts: instant } = await generateRollouts(questionEchoModel(), episodesOf(prompts), settingsWith(answeringSandbox([])));
    expect(rollouts.map((r) => r.episode.tokens)).toEqual(instant.map((r) => r.episode.tokens));
  });

  it('runs each program of a batch once: rows that write the same program, even after its run ended, are fed that run\'s output', async () => {
    // Rows 0 and 2 write print(6*7), rows 1 and 3 print(6*8); rows 2 and 3 close their blocks 5
    // steps after rows 0 and 1, when the first runs have long ended.
    const prompts = ['Q: 6*7?\nA:', 'Q: 6*8?\nA:', 'Q: what 6*7?\nA:', 'Q: what 6*8?\nA:'].map((text) => encode(text));
    const calls: string[] = [];
    const sandbox = answeringSandbox(calls);
    const { rollouts } = await generateRollouts(questionEchoModel(), episodesOf(prompts), settingsWith(sandbox));
    expect(calls).toEqual(['print(6*7)', 'print(6*8)']);
    expect(rollouts.map((r) => r.episode.responseText())).toEqual(['6*7', '6*8', '6*7', '6*8'].map(echoScript));
    // A new batch (the next step) runs its programs again: only rows of one batch share a run.
    await generateRollouts(questionEchoModel(), episodesOf(prompts.slice(0, 1)), settingsWith(sandbox));
    expect(calls).toEqual(['print(6*7)', 'print(6*8)', 'print(6*7)']);
  });

  it('a call slower than a token step stalls the batch, and the stall is counted as execute time', async () => {
    let callMs = 0;
    const slowSandbox: PythonSandbox = {
      run: () => {
        const started = performance.now();
        return new Promise<RunResult>((resolve) =>
          setTimeout(() => {
            callMs += performance.now() - started;
            resolve({ ok: true, stdout: '42\n', stderr: '', timedOut: false, truncated: false, durationMs: 30 });
          }, 30),
        );
      },
      async close() {},
    };
    const { rollouts, timing } = await generateRollouts(scriptedModel(), episodesOf([encode('Q: what is 6*7?\nA:')]), {
      temperature: 1,
      rng: new Random(3),
      sandbox: slowSandbox,
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    expect(rollouts[0].episode.responseText()).toBe(SCRIPT);
    expect(callMs).toBeGreaterThanOrEqual(25);
    expect(timing.executeSeconds).toBeGreaterThan(0.01);
    expect(timing.executeSeconds).toBeLessThanOrEqual(callMs / 1000 + 0.005);
  });

  it('a sandbox that throws fails the rollout with its error and leaks no tensor', async () => {
    const before = tf.memory().numTensors;
    const broken: PythonSandbox = { run: () => Promise.reject(new Error('pool closed')), async close() {} };
    await expect(
      generateRollouts(scriptedModel(), episodesOf([encode('Q: what is 6*7?\nA:')]), {
          temperature: 1,
        rng: new Random(3),
        sandbox: broken,
        runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
      }),
    ).rejects.toThrow('pool closed');
    expect(tf.memory().numTensors).toBe(before);
  });

  it('refuses, before generating, an answer cap the model\'s context cannot hold beside the longest prompt', async () => {
    const model = scriptedModel();
    const prompt = encode('Q: what is 6*7?\nA:');
    const settings = () => ({
      temperature: 1,
      rng: new Random(3),
      sandbox: answeringSandbox([]),
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    const room = model.config.contextLength - 1 - prompt.length;
    const before = tf.memory().numTensors;
    await expect(generateRollouts(model, episodesOf([prompt], 2, room + 1), settings())).rejects.toThrow(
      `set the answer cap (maxResponseTokens) to ${room} or less, or start from a model with a longer context`,
    );
    expect(tf.memory().numTensors).toBe(before);
    await expect(generateRollouts(model, episodesOf([prompt], 2, room), settings())).resolves.toBeDefined();
  });

  it('drops finished rows from the cache and still gives each rollout its own tokens, log-probs and values', async () => {
    // Prompts 10 tokens apart: the short ones finish first and leave the cache.
    const prompts = [0, 10, 20, 30, 40].map((pad) => encode(`Q: ${'x'.repeat(pad)}6*7?\nA:`));
    const rowsPerStep: number[] = [];
    const model = scriptedPolicy(() => SCRIPT, { value: (fed) => fed.length });
    const step = model.step.bind(model);
    model.step = (cache, tokens) => {
      rowsPerStep.push(tokens.length);
      return step(cache, tokens);
    };
    const calls: string[] = [];
    const { rollouts } = await generateRollouts(model, episodesOf(prompts), {
      temperature: 1,
      rng: new Random(3),
      sandbox: answeringSandbox(calls),
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    expect(rowsPerStep[0]).toBe(5);
    expect(Math.min(...rowsPerStep)).toBeLessThan(5);
    expect(rowsPerStep.at(-1)).toBe(1);
    // Five rows, one program: one run, its output fed to every row.
    expect(calls).toEqual(['print(6*7)']);
    rollouts.forEach((r, b) => {
      expect(r.episode.responseText()).toBe(SCRIPT);
      // The estimate before response token j was made with BOS, the prompt and j tokens fed.
      r.episode.policyMask.forEach((m, j) => expect(r.values[j]).toBe(m === 1 ? prompts[b].length + 1 + j : 0));
      r.episode.policyMask.forEach((m, j) => (m === 1 ? expect(r.logProbs[j]).toBeCloseTo(0, 5) : expect(r.logProbs[j]).toBe(0)));
    });
  });

  it('feeds the prompts in one prefill as far as the shortest goes, then one token per step', async () => {
    const prompts = [encode('Q: what is 6*7?\nA:'), encode('Q: what is 6*7, please?\nA:')];
    const calls: { kind: 'prefill' | 'step'; width: number; rows: number }[] = [];
    const model = scriptedModel();
    const [prefill, step] = [model.prefill.bind(model), model.step.bind(model)];
    model.prefill = (cache, rows) => {
      calls.push({ kind: 'prefill', width: rows[0].length, rows: rows.length });
      return prefill(cache, rows);
    };
    model.step = (cache, tokens) => {
      calls.push({ kind: 'step', width: 1, rows: tokens.length });
      return step(cache, tokens);
    };
    const { rollouts, timing } = await generateRollouts(model, episodesOf(prompts), {
      temperature: 1,
      rng: new Random(3),
      sandbox: answeringSandbox([]),
      runOptions: { timeoutMs: 1000, maxOutputBytes: 1024 },
    });
    // BOS and the shorter prompt (18 tokens) in one call; the longer prompt's last 8 then go one per step.
    expect(calls[0]).toEqual({ kind: 'prefill', width: 19, rows: 2 });
    expect(calls.slice(1).every((c) => c.kind === 'step')).toBe(true);
    expect(calls.filter((c) => c.kind === 'prefill')).toHaveLength(1);
    expect(timing.tokenSteps).toBe(calls.length);
    rollouts.forEach((r) => expect(r.episode.responseText()).toBe(SCRIPT));
  });
});
