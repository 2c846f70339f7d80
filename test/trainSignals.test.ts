/**
 * SIGTERM (timeout, Slurm, docker stop, systemd) and SIGHUP (a closed terminal) stop `npm run train`
 * as Ctrl-C does: the run is saved at its last completed step, the exit code is 128 + the signal's
 * number, and `--resume` continues it to the same figures, samples and weights as a run never
 * stopped; an Nmax sweep passes the signal on to every arm. A closed stderr (`| head`) stops
 * nothing. Before, SIGTERM and SIGHUP killed the CLI with
 * no checkpoint (a directory neither --resume nor a new run would take), and the EPIPE of a progress
 * line ended the run with exit 7, unsaved.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killGroups } from './processGroups';
import { checkpointStep, metricsOf, metricSteps } from './runDirectoryFiles';

const out = mkdtempSync(join(tmpdir(), 'train-signals-'));
/** The CLI processes started, each the leader of its own group, stopped at the end if a failed assertion left one running. */
const groups: number[] = [];
afterAll(() => {
  killGroups(groups);
  rmSync(out, { recursive: true, force: true });
});

/** The quick preset cut to 1 prompt x 2 for 6 steps, held-out test at step 0 only: about 1 s a step here besides that test. */
const RUN = ['--preset', 'quick', '--seed', '4', '--prompts-per-step', '1', '--group-size', '2', '--minibatch-size', '2', '--samples-per-step', '1', '--test-every', '1000', '--steps', '6'];

interface Training {
  pid: number;
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** Closes this side of the CLI's stderr pipe, as `| head` does once it has its lines. */
  closeStderr(): void;
}

/** The CLI as `npm run train` runs it (node --import tsx), its stderr piped here. */
function train(args: string[]): Training {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/train.ts', ...args], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  groups.push(child.pid!);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  return { pid: child.pid!, ended, closeStderr: () => child.stderr.destroy() };
}

async function untilStep(dir: string, step: number, run: Training): Promise<void> {
  let over = false;
  void run.ended.then(() => (over = true));
  while (!(metricSteps(dir) ?? []).includes(step)) {
    if (over) throw new Error(`the run ended before step ${step}: ${(await run.ended).stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('npm run train, stopped by SIGTERM or SIGHUP, its stderr closed', () => {
  it('saves on SIGTERM (exit 143) and SIGHUP (exit 129), outlives a closed stderr, and resumes to the run never stopped', async () => {
    const straight = join(out, 'straight');
    const whole = await train([...RUN, '--out', straight]).ended;
    expect(whole.code).toBe(0);

    const dir = join(out, 'stopped');
    for (const [signal, code, args, after] of [
      ['SIGTERM', 143, [...RUN, '--out', dir], 1],
      ['SIGHUP', 129, ['--resume', dir], 3],
    ] as const) {
      const stopped = train([...args]);
      await untilStep(dir, after, stopped);
      process.kill(stopped.pid, signal);
      const end = await stopped.ended;
      const saved = checkpointStep(dir);
      expect([end.code, end.signal]).toEqual([code, null]);
      expect(saved).toBeGreaterThanOrEqual(after);
      expect(end.stderr).toContain(`interrupted; saved: ${dir}, step ${saved}/6`);
      expect(end.stderr.trimEnd().split('\n').at(-1)).toBe(`continue it with: npm run train -- --resume ${dir}`);
      expect(metricSteps(dir)).toEqual(Array.from({ length: saved + 1 }, (_, step) => step));
    }

    // Resumed to the end with stderr closed after its first line, as `| head -1` leaves it.
    const last = train(['--resume', dir]);
    await untilStep(dir, checkpointStep(dir) + 1, last);
    last.closeStderr();
    expect((await last.ended).code).toBe(0);
    expect(checkpointStep(dir)).toBe(6);
    expect(metricsOf(dir)).toEqual(metricsOf(straight));
    expect(readFileSync(join(dir, 'samples.jsonl'), 'utf8')).toBe(readFileSync(join(straight, 'samples.jsonl'), 'utf8'));
    expect(readFileSync(join(dir, 'checkpoint', 'weights.bin')).equals(readFileSync(join(straight, 'checkpoint', 'weights.bin')))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')).stepsCompleted).toBe(6);
  }, 180_000);

  it('passes SIGTERM on to every arm of an Nmax sweep: each saves its run, and the sweep exits 143', async () => {
    const sweep = join(out, 'sweep');
    // Budget enough that neither arm is done before the other has begun (the arms start seconds apart under load).
    const stopped = train([...RUN, '--steps', '200', '--nmax', '0,1', '--out', sweep]);
    for (const nmax of [0, 1]) await untilStep(join(sweep, `nmax-${nmax}`), 1, stopped);
    process.kill(stopped.pid, 'SIGTERM');
    const end = await stopped.ended;
    expect([end.code, end.signal]).toEqual([143, null]);
    for (const nmax of [0, 1]) {
      const arm = join(sweep, `nmax-${nmax}`);
      const saved = checkpointStep(arm);
      expect(saved).toBeGreaterThanOrEqual(1);
      expect(metricSteps(arm)).toEqual(Array.from({ length: saved + 1 }, (_, step) => step));
      expect(end.stderr).toContain(`[nmax ${nmax}] interrupted; saved: ${arm}, step ${saved}/200`);
    }
  }, 120_000);
});
