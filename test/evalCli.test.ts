import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalTable } from '../src/cli/evalTable';
import { PRESETS } from '../src/core/experiment';
import type { EvalBlock } from '../src/core/eval/evalReport';

const TSX = join('node_modules', '.bin', 'tsx');

function runCli(script: string, args: string[]) {
  const done = spawnSync(TSX, [script, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: done.status, stdout: done.stdout, stderr: done.stderr };
}

describe('npm run eval / npm run sft arguments', () => {
  it('eval: a bad flag value is a usage error (exit 2) naming the flag', () => {
    const bad = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent', '--k', '0']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--k needs a whole number from 1 to 256, got '0'/);
    expect(bad.stderr).toMatch(/usage: npm run eval/);
    const topP = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent', '--top-p', '1.5']);
    expect(topP.status).toBe(2);
    expect(topP.stderr).toMatch(/--top-p needs a number in \(0, 1\]/);
  }, 60_000);

  it('eval: a missing checkpoint exits 2 saying which file is missing', () => {
    const missing = runCli('src/cli/eval.ts', ['--checkpoint', '/nonexistent-checkpoint']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/\/nonexistent-checkpoint has no model.json/);
  }, 60_000);

  it('sft: --out is required and the format is checked', () => {
    expect(runCli('src/cli/sft.ts', []).stderr).toMatch(/--out DIR is required/);
    const format = runCli('src/cli/sft.ts', ['--out', '/tmp/x', '--format', 'json']);
    expect(format.status).toBe(2);
    expect(format.stderr).toMatch(/--format must be retool or zerotir, got 'json'/);
  }, 60_000);
});

describe('npm run sft', () => {
  const sftMix = (dir: string) => JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')).meta.sft.mix;
  const retoolMix = { tierMix: PRESETS.retool.tierMix, kindMix: PRESETS.retool.kindMix };

  it("draws its traces by the retool preset's mix, the one the shipped cold start was made with", () => {
    const out = mkdtempSync(join(tmpdir(), 'sft-'));
    try {
      const made = runCli('src/cli/sft.ts', ['--out', out, '--steps', '1', '--traces', '8']);
      expect(made.status, made.stderr).toBe(0);
      expect(sftMix(out)).toEqual(retoolMix);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    // The classroom's mix is not it (search and error-prone a twentieth there), so this pins the preset read.
    expect(PRESETS.classroom.kindMix).not.toEqual(PRESETS.retool.kindMix);
    expect(sftMix('public/models/coldstart')).toEqual(retoolMix);
  }, 60_000);
});

describe("npm run eval's table", () => {
  const block = (nmax: number, figures: Partial<EvalBlock>): EvalBlock => ({
    nmax, samples: 8, 'pass@1': 0.5, standardError: 0.1, byTier: { easy: 1, medium: 0.5, hard: null },
    byKind: { arithmetic: 0.5, compose: null, search: null, errorProne: null, multiStep: null, chain: null }, byFamily: {}, byDepth: [null, null, null, null, null], perProblem: [],
    codeRatio: 1, codeLines: 1, correctCodeCount: 8, codePassRate: 1, invocationPosition: 0.1, callsPerResponse: 1.25,
    callsHistogram: [0, 6, 2, 0, 0, 0, 0, 0, 0], singleCallShare: 0.75, singleCallShareByDepth: [null, null, null, null, null], callsPerResponseByDepth: [null, null, null, null, null],
    selfCorrections: 2, selfCorrectedResponses: 2, selfCorrectionShare: 0.25, ...figures,
  });

  it('gives a row per Nmax with the self-corrections and their share, then the depths some block measured', () => {
    const text = evalTable([
      block(1, { byDepth: [0.75, 0.5, null, 0, null], callsPerResponseByDepth: [1, 1, null, 1, null], singleCallShareByDepth: [1, 1, null, null, null] }),
      block(4, { byDepth: [0.75, 1, null, 0.25, null], callsPerResponseByDepth: [1, 2, null, 3.5, null], singleCallShareByDepth: [1, 0.5, null, 0, null] }),
    ]);
    expect(text.split('\n')).toEqual([
      'nmax  pass@1  easy   medium hard   codeRatio calls/resp codePass single selfCorr selfCorrShare',
      '1     0.500   1.000  0.500  --  1.000     1.250      1.000    0.750  2        0.250',
      '4     0.500   1.000  0.500  --  1.000     1.250      1.000    0.750  2        0.250',
      'by depth (the calls a step-by-step solution takes):',
      'nmax  pass d1  pass d2  pass d4  calls d1 calls d2 calls d4 single d1 single d2 single d4',
      '1     0.75     0.50     0.00     1.00     1.00     1.00     1.00     1.00     --',
      '4     0.75     1.00     0.25     1.00     2.00     3.50     1.00     0.50     0.00',
    ]);
  });

  it('has no depth lines for blocks that measured no depth (a report from before the figures)', () => {
    expect(evalTable([block(0, {})]).split('\n')).toHaveLength(2);
  });
});
