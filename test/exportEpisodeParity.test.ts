/**
 * tir_episode.py runs the same state machine as src/core/rollout/episode.ts: it replays the lab's own
 * samples.jsonl transcripts (the recorded tool outputs fed back) into the same segments and calls,
 * formats tool output exactly as the lab does, and follows the TypeScript episode step for step on
 * seeded random streams (fences, Nmax, the length cap cutting anywhere).
 */
import { describe, expect, it } from 'vitest';
import { Episode, formatToolOutput, type EpisodeConfig } from '../src/core/rollout/episode';
import { TOOL_FORMATS } from '../src/core/rollout/formats';
import { Random } from '../src/core/random';
import type { RolloutSample, SampleSegment } from '../src/core/rollout/rolloutSample';
import type { RunResult } from '../src/core/sandbox/protocol';
import { decode, EOS, encode } from '../src/core/tokenizer';
import { fixtureSamples } from './exportFixtures';
import { pythonResult, randomResult, streamPlans } from './exportStreams';
import { runPython } from './pythonExport';

interface EpisodeOutcome {
  segments: SampleSegment[];
  calls: { code: string; executed: boolean }[];
  done: boolean;
  endedWithEos: boolean;
  error: string | null;
}

const PYTHON_REPLAY = `
from tir_episode import ToolEpisode
out = []
for s in json.load(sys.stdin):
    ep = ToolEpisode(s["format"], s["nmax"], s["maxOutputChars"], s["maxResponseTokens"])
    error = None
    try:
        for seg in s["segments"]:
            if seg["kind"] == "policy":
                for ch in seg["text"]:
                    ep.push_policy_char(ch)
            else:
                ep.push_environment_text(seg["text"])
        if s["endedWithEos"]:
            ep.push_eos()
    except RuntimeError as e:
        error = str(e)
    out.append({"segments": [{"kind": k, "text": t} for k, t in ep.segments],
                "calls": [{"code": c["code"], "executed": c["executed"]} for c in ep.calls],
                "done": ep.done, "endedWithEos": ep.ended_with_eos, "error": error})
json.dump(out, sys.stdout)
`;

/** The episode settings the fixtures were recorded with (the quick preset when they were made). */
const RECORDED_WITH = { nmax: 2, maxOutputChars: 64, maxResponseTokens: 96 };

describe('tir_episode.py replays the lab transcripts', () => {
  for (const [file, format] of [
    ['samples-quick-zerotir.jsonl', 'zerotir'],
    ['samples-coldstart-retool.jsonl', 'retool'],
  ] as const) {
    it(`gives the recorded segments and calls of ${file}`, () => {
      const samples: RolloutSample[] = fixtureSamples(file);
      const { nmax, maxOutputChars, maxResponseTokens } = RECORDED_WITH;
      const replayed = runPython<EpisodeOutcome[]>(
        PYTHON_REPLAY,
        samples.map((s) => ({ format, nmax, maxOutputChars, maxResponseTokens, segments: s.segments, endedWithEos: s.endedWithEos })),
      );
      const outputOpen = TOOL_FORMATS[format].outputOpen;
      samples.forEach((s, i) => {
        const r = replayed[i];
        expect(r.error, `sample ${i}`).toBeNull();
        expect(r.segments, `sample ${i}`).toEqual(s.segments);
        expect(r.calls, `sample ${i}`).toEqual(s.calls.map((c) => ({ code: c.code, executed: c.executed })));
        // Every response ended: by EOS, or by the cap where the lab stopped it.
        expect(r.done, `sample ${i}`).toBe(true);
        expect(r.endedWithEos).toBe(s.endedWithEos);
        for (const seg of s.segments.filter((g) => g.kind === 'env')) expect(outputOpen.startsWith(seg.text) || seg.text.startsWith(outputOpen)).toBe(true);
      });
      // The transcripts exercise the tool: executed calls with output blocks.
      expect(samples.filter((s) => s.segments.some((g) => g.kind === 'env')).length).toBeGreaterThan(50);
    });
  }

  it('refuses a tool output where the lab would not have run code', () => {
    const [r] = runPython<EpisodeOutcome[]>(PYTHON_REPLAY, [
      { format: 'zerotir', nmax: 2, maxOutputChars: 64, maxResponseTokens: 96, endedWithEos: true, segments: [{ kind: 'policy', text: ' 6*7' }, { kind: 'env', text: '\n```output\n42\n```\n' }] },
    ]);
    expect(r.error).toMatch(/no call is awaiting/);
  });
});

describe('format_tool_output', () => {
  it('writes what formatToolOutput writes, for 400 seeded results and limits', () => {
    const rng = new Random(1501);
    const cases = Array.from({ length: 400 }, () => ({ result: randomResult(rng), maxChars: rng.int(0, 48) }));
    const python = runPython<string[]>(
      `from tir_episode import format_tool_output
json.dump([format_tool_output(c["result"], c["maxChars"]) for c in json.load(sys.stdin)], sys.stdout)`,
      cases.map((c) => ({ result: pythonResult(c.result), maxChars: c.maxChars })),
    );
    const lab = cases.map((c) => formatToolOutput(c.result, c.maxChars));
    expect(python).toEqual(lab);
    expect(lab.filter((t) => t.endsWith('...[output truncated]')).length).toBeGreaterThan(50);
  });
});

/** The TypeScript episode on a policy stream, with a result per executed call derived from its code. */
function runTsEpisode(text: string, config: EpisodeConfig, results: RunResult[]): EpisodeOutcome {
  const episode = new Episode([], config);
  let calls = 0;
  for (const id of [...encode(text), EOS]) {
    const action = episode.pushPolicyToken(id);
    if (action.type === 'execute') episode.pushToolResult(results[calls++]);
    if (episode.done) break;
  }
  const segments: SampleSegment[] = [];
  let start = 0;
  for (let i = 1; i <= episode.tokens.length; i++) {
    if (i === episode.tokens.length || episode.policyMask[i] !== episode.policyMask[start]) {
      // A lone EOS decodes to nothing: the Python episode keeps no empty segment.
      const text = decode(episode.tokens.slice(start, i));
      if (text !== '') segments.push({ kind: episode.policyMask[start] === 1 ? 'policy' : 'env', text });
      start = i;
    }
  }
  return { segments, calls: episode.calls.map((c) => ({ code: c.code, executed: c.executed })), done: episode.done, endedWithEos: episode.endedWithEos, error: null };
}

describe('tir_episode.py against the TypeScript episode', () => {
  it('takes the same steps on 300 seeded streams of both formats', () => {
    const plans = streamPlans(1502, 300);
    const lab = plans.map((p) => runTsEpisode(p.text, { format: TOOL_FORMATS[p.format], nmax: p.nmax, maxResponseTokens: p.maxResponseTokens, maxOutputChars: p.maxOutputChars }, p.results));
    const python = runPython<EpisodeOutcome[]>(
      `from tir_episode import ToolEpisode, EXECUTE
out = []
for p in json.load(sys.stdin):
    ep = ToolEpisode(p["format"], p["nmax"], p["maxOutputChars"], p["maxResponseTokens"])
    results = iter(p["results"])
    for ch in p["text"]:
        if ep.push_policy_char(ch) == EXECUTE:
            ep.push_tool_result(next(results))
        if ep.done:
            break
    if not ep.done:
        ep.push_eos()
    out.append({"segments": [{"kind": k, "text": t} for k, t in ep.segments],
                "calls": [{"code": c["code"], "executed": c["executed"]} for c in ep.calls],
                "done": ep.done, "endedWithEos": ep.ended_with_eos, "error": None})
json.dump(out, sys.stdout)`,
      plans.map((p) => ({ ...p, results: p.results.map(pythonResult) })),
    );
    expect(python).toEqual(lab);
    // The streams reach every branch: executed calls, calls past Nmax, and the cap.
    expect(lab.filter((o) => o.calls.some((c) => c.executed)).length).toBeGreaterThan(30);
    expect(lab.filter((o) => o.calls.some((c) => !c.executed)).length).toBeGreaterThan(10);
    expect(lab.filter((o) => !o.endedWithEos).length).toBeGreaterThan(30);
  });
});
