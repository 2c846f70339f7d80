/**
 * The exported loops on an engine that behaves like the real one (test/exportStandInEngine.py says
 * what each stand-in copies and from where): a BPE tokenizer made here, in which a closing fence or
 * tag shares its token with the newline after it; vLLM stopping inside that token (the text cut at
 * the stop, the token ids not) and, as OpenRLHF samples, writing <|endoftext|> into the text. Each
 * bundle's loop, with the engine's classes around it (verl's TirAgentLoop.run with its tool;
 * OpenRLHF's AgentExecutor in 0.11.0's MultiTurnAgentExecutor), writes the lab's own rollouts:
 * two seeded runs' samples (one call at most) and episodes of up to three calls made by the lab's
 * Episode, in both formats. Each must score the lab's reward, read the lab's response text, and
 * hand the engine the tokens the model sampled (mask 1) and the lab's output blocks (mask 0).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Episode } from '../src/core/rollout/episode';
import { TOOL_FORMATS, type ToolFormatName } from '../src/core/rollout/formats';
import { PRESETS } from '../src/core/experiment';
import { clusterBundle, PYTHON_FILES } from '../src/core/export/clusterBundle';
import type { EngineName } from '../src/core/export/engineVersions';
import { Random } from '../src/core/random';
import type { Problem } from '../src/core/tasks/problem';
import { answerReward } from '../src/core/tasks/reward';
import { trainProblem } from '../src/core/tasks/splits';
import type { RunResult } from '../src/core/sandbox/protocol';
import { decode, EOS, encode } from '../src/core/tokenizer';
import { fixtureSamples } from './exportFixtures';
import { PYTHON_SOURCES, runPython } from './pythonExport';

interface Segment {
  kind: 'policy' | 'env';
  text: string;
}

/** A lab rollout: its prompt, settings, segments, and the lab's reward. */
interface LabCase {
  format: ToolFormatName;
  nmax: number;
  prompt: string;
  answer: number;
  segments: Segment[];
  endedWithEos: boolean;
  reward: number;
  /** What the model writes right after a closing fence that ran, in the token that holds the fence's end. */
  runOn: string;
}

interface LoopOutcome {
  reward: number;
  episodeText: string;
  spans: Segment[];
  responseTokens: number;
  logprobs: boolean;
  calls: number;
}

interface DriveResult {
  outcomes: LoopOutcome[];
  counts: { generations: number; stopsInsideAToken: number; eosInText: number };
  /** A fenced call and its closing fence (tags), as the tokenizer splits them. */
  split: string[];
}

const RUN_ONS = ['\n', '\n', '\n', ''];

/** The two seeded runs' samples (test/exportFixtures.ts), as recorded (Nmax 2). */
function fixtureCases(rng: Random): LabCase[] {
  return (
    [
      ['samples-quick-zerotir.jsonl', 'zerotir'],
      ['samples-coldstart-retool.jsonl', 'retool'],
    ] as const
  ).flatMap(([file, format]) =>
    fixtureSamples(file).map((s) => ({
      format,
      nmax: 2,
      prompt: s.prompt,
      answer: s.expected,
      segments: s.segments,
      endedWithEos: s.endedWithEos,
      reward: s.reward,
      runOn: rng.pick(RUN_ONS),
    })),
  );
}

const ok = (stdout: string): RunResult => ({ ok: true, stdout, stderr: '', timedOut: false, truncated: false, durationMs: 1 });
const failed = (type: string, message: string): RunResult => ({ ok: false, stdout: '', stderr: message, error: { type, message }, timedOut: false, truncated: false, durationMs: 1 });

/**
 * Multi-call episodes written by the lab's Episode: a policy stream (fences, code, answer) with a
 * result for each call it runs, then EOS; the cap cuts some. Two or three calls, a call past Nmax,
 * a failed call then its fix, a program printing an Answer: line, wrong and right answers.
 */
function labEpisodeCases(rng: Random): LabCase[] {
  const cases: LabCase[] = [];
  for (let i = 0; i < 60; i++) {
    const format: ToolFormatName = i % 2 === 0 ? 'zerotir' : 'retool';
    const { codeOpen, codeClose } = TOOL_FORMATS[format];
    const p: Problem = trainProblem(rng, { tierMix: { easy: 1, medium: 1, hard: 1 }, kindMix: { arithmetic: 1, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 } });
    const a = p.answer;
    const block = (code: string) => `${codeOpen}\n${code}\n${codeClose}`;
    const scripts: [string[], RunResult[], number][] = [
      [[rng.pick(['', ' ', ' Let me compute. ']), block(`print(${p.expression})`), '\n', block(`print(${a} + 0)`), `\nAnswer: ${a}`], [ok(`${a}\n`), ok(`${a}\n`)], 2],
      [[' ', block(`print(${p.expression} x)`), ' fix: ', block(`print(${p.expression})`), `\nAnswer: ${a}`], [failed('SyntaxError', 'SyntaxError: invalid syntax'), ok(`${a}\n`)], 2],
      [[' ', block(`print(${p.expression})`), block('print(1)'), block('print(2)'), `\nAnswer: ${a}`], [ok(`${a}\n`), ok('1\n')], 2],
      [[' ', block(`print(${p.expression})`), block('print(1)'), block(`print("Answer: ${a}")`), `\nAnswer: ${a}`], [ok(`${a}\n`), ok('1\n'), ok(`Answer: ${a}\n`)], 3],
      [[' ', block(`print(${p.expression})`), '\n', block(`print(${a} - 1)`), `\nAnswer: ${a - 1}`], [ok(`${a}\n`), ok(`${a - 1}\n`)], 3],
    ];
    const [pieces, results, nmax] = scripts[i % scripts.length];
    const cap = rng.next() < 0.15 ? rng.int(30, 70) : 600;
    const episode = new Episode([], { format: TOOL_FORMATS[format], nmax, maxResponseTokens: cap, maxOutputChars: 64 });
    let calls = 0;
    for (const id of [...encode(pieces.join('')), EOS]) {
      if (episode.pushPolicyToken(id).type === 'execute') episode.pushToolResult(results[calls++]);
      if (episode.done) break;
    }
    const segments: Segment[] = [];
    episode.tokens.forEach((id, k) => {
      if (id === EOS) return;
      const kind = episode.policyMask[k] === 1 ? 'policy' : 'env';
      if (segments.at(-1)?.kind === kind) segments[segments.length - 1].text += decode([id]);
      else segments.push({ kind, text: decode([id]) });
    });
    cases.push({
      format,
      nmax,
      prompt: `Q: ${p.question}\nA:`,
      answer: a,
      segments,
      endedWithEos: episode.endedWithEos,
      reward: answerReward(episode.responseText(), episode.endedWithEos, p),
      runOn: rng.pick(RUN_ONS),
    });
  }
  return cases;
}

const root = mkdtempSync(join(tmpdir(), 'tir-stand-in-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function writtenBundle(engine: EngineName): string {
  const dir = join(root, engine);
  const python = Object.fromEntries(PYTHON_FILES[engine].map((name) => [name, readFileSync(join(PYTHON_SOURCES, name), 'utf8')]));
  for (const [path, contents] of Object.entries(clusterBundle({ engine, config: PRESETS.classroom, model: 'm', trainSize: 1, source: 't' }, python))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  return dir;
}

const STAND_INS = readFileSync('test/exportStandInEngine.py', 'utf8');

function drive(engine: EngineName, cases: LabCase[]): DriveResult {
  const format = cases[0].format;
  const result = runPython<{
    outcomes: LoopOutcome[];
    counts: { generations: number; stops_inside_a_token: number; eos_in_text: number };
    split: string[];
  }>(
    `${STAND_INS}\nmain(${JSON.stringify(engine)}, ${JSON.stringify(writtenBundle(engine))}, ${JSON.stringify(format)})`,
    cases,
  );
  const { generations, stops_inside_a_token: stopsInsideAToken, eos_in_text: eosInText } = result.counts;
  return { ...result, counts: { generations, stopsInsideAToken, eosInText } };
}

/** The response the engine's tokens spell out (special tokens skipped): the lab's, with each run-on after its fence. */
function expectedSpans(c: LabCase): Segment[] {
  return c.segments.map((s, i) => (s.kind === 'policy' && i + 1 < c.segments.length ? { ...s, text: s.text + c.runOn } : s)).filter((s) => s.text !== '');
}

const rng = new Random(2424);
const ALL_CASES = [...fixtureCases(rng), ...labEpisodeCases(rng)];
const callsOf = (c: LabCase) => c.segments.filter((s) => s.kind === 'env').length;

describe.each([
  ['verl', 'zerotir'],
  ['verl', 'retool'],
  ['openrlhf', 'zerotir'],
  ['openrlhf', 'retool'],
] as const)('%s bundle on the stand-in engine, %s format', (engine, format) => {
  const cases = ALL_CASES.filter((c) => c.format === format);
  const ended = cases.map((c, i) => [c, i] as const).filter(([c]) => c.endedWithEos);
  let result: DriveResult;
  beforeAll(() => {
    result = drive(engine, cases);
  });

  it("scores every lab rollout with the lab's reward", () => {
    expect(result.outcomes.map((o) => o.reward)).toEqual(cases.map((c) => c.reward));
    expect(cases.filter((c) => c.reward === 1).length).toBeGreaterThan(100);
  });

  it("reads the lab's response text, and hands the engine the sampled tokens and the lab's output blocks", () => {
    for (const [c, i] of ended) {
      const o = result.outcomes[i];
      expect(o.episodeText, `case ${i}`).toBe(c.segments.map((s) => s.text).join(''));
      expect(o.spans, `case ${i}`).toEqual(expectedSpans(c));
      expect(o.calls, `case ${i}`).toBe(callsOf(c));
      expect(o.logprobs).toBe(true);
    }
    // A response the lab cut at its cap is cut at the engine's token cap here, with no reward.
    for (const i of cases.flatMap((c, k) => (c.endedWithEos ? [] : [k]))) {
      expect(result.outcomes[i].reward, `case ${i}`).toBe(0);
      expect(result.outcomes[i].responseTokens, `case ${i}`).toBeGreaterThanOrEqual(300);
    }
  });

  it('met the awkward cases: stops inside a token, EOS in the text, multi-call episodes, calls past Nmax', () => {
    // The closing fence or tag shares its token with the newline after it.
    expect(result.split).toEqual(
      format === 'zerotir' ? [' ```', 'python', '\n', 'print', '(', '1', ')\n', '```\n'] : [' <', 'code', '>\n', 'print', '(', '1', ')\n', '</', 'code', '>\n'],
    );
    expect(result.counts.stopsInsideAToken).toBeGreaterThan(format === 'zerotir' ? 50 : 250);
    expect(result.counts.generations).toBeGreaterThan(cases.length + 100);
    // OpenRLHF samples with skip_special_tokens=False: EOS is in the text of every response that ended on it.
    expect(result.counts.eosInText).toBe(engine === 'openrlhf' ? ended.length : 0);
    const multi = ended.filter(([c]) => callsOf(c) >= 2);
    expect(multi.length).toBeGreaterThan(10);
    expect(multi.some(([c]) => callsOf(c) === 3)).toBe(true);
    expect(multi.filter(([c]) => c.reward === 1).length).toBeGreaterThan(5);
    expect(ended.filter(([c]) => callsOf(c) === c.nmax && c.segments.at(-1)!.text.includes(TOOL_FORMATS[format].codeClose)).length).toBeGreaterThan(2);
    expect(cases.filter((c) => !c.endedWithEos).length).toBeGreaterThan(0);
  });
});
