/**
 * `npm run train -- --nmax 0,1,2,4 [...]`: the arms of an Nmax sweep, each an ordinary `npm run
 * train` in its own process (`DIR/nmax-N`), as many at a time as the machine has cores. The engine
 * runs a process's kernels on one thread, so arms side by side are what use the other cores; each
 * arm's figures are those it gives alone (the same seed and config, the same numbers). Each line an
 * arm prints is passed on with its arm's name; Ctrl-C, SIGTERM and SIGHUP reach every arm, and each
 * saves its run.
 */
import { spawn } from 'node:child_process';
import { availableParallelism, constants } from 'node:os';
import { join } from 'node:path';
import { NUMERIC_BOUNDS } from '../core/experiment';
import { UsageError, wholeNumberFlag } from './cliArgs';

/** The arms' Nmax values if argv asks for several (`--nmax 0,1,2` or `--nmax=0,1,2`), else null. */
export function nmaxArms(argv: readonly string[]): number[] | null {
  const at = argv.findIndex((arg) => arg === '--nmax' || arg.startsWith('--nmax='));
  if (at < 0) return null;
  const value = argv[at].startsWith('--nmax=') ? argv[at].slice('--nmax='.length) : argv[at + 1];
  if (value === undefined || !value.includes(',')) return null;
  const [low, high] = NUMERIC_BOUNDS.nmax;
  const arms = value.split(',').map((part) => wholeNumberFlag('nmax', part, low, high));
  if (new Set(arms).size !== arms.length) throw new UsageError(`--nmax lists an arm twice: ${value}`);
  return arms;
}

/**
 * argv with `--nmax N` in place of the list: the flags as one arm reads them, for the parent to
 * check once before any arm starts.
 */
export function withOneNmax(argv: readonly string[], nmax: number): string[] {
  const at = argv.findIndex((arg) => arg === '--nmax' || arg.startsWith('--nmax='));
  if (argv[at] === '--nmax') return [...argv.slice(0, at + 1), String(nmax), ...argv.slice(at + 2)];
  return [...argv.slice(0, at), `--nmax=${nmax}`, ...argv.slice(at + 1)];
}

/**
 * argv for one arm (argv as the parent checked it: --out has its value): `--nmax N` in place of the
 * list, its own directory under --out (default runs/sweep), and `--update-threads` (the arm's share
 * of the cores) unless argv gives it.
 */
export function armArgv(argv: readonly string[], nmax: number, updateThreads = 1): string[] {
  const out: string[] = [];
  let dir = join('runs', 'sweep');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--nmax' || arg === '--out') {
      if (arg === '--out') dir = argv[i + 1];
      i++;
    } else if (arg.startsWith('--nmax=')) continue;
    else if (arg.startsWith('--out=')) dir = arg.slice('--out='.length);
    else out.push(arg);
  }
  const threads = argv.some((arg) => arg === '--update-threads' || arg.startsWith('--update-threads=')) ? [] : ['--update-threads', String(updateThreads)];
  return [...out, '--nmax', String(nmax), '--out', join(dir, `nmax-${nmax}`), ...threads];
}

/** One process per core, at least one. */
export function armsAtOnce(): number {
  return Math.max(1, availableParallelism());
}

/** Threads for each arm's updates: the cores shared among the arms that run at once, at most 4 each. */
export function armUpdateThreads(lanes: number): number {
  return Math.min(4, Math.max(1, Math.floor(availableParallelism() / lanes)));
}

/** The signals that stop a run, each passed on to every arm. */
const STOPPING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Runs the arms, `atOnce` at a time, each as `node <execArgv> <script> <arm argv>`; resolves to the
 * worst exit code (0 when every arm finished), or 128 + the number of the signal that stopped them
 * (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP).
 */
export async function runNmaxArms(script: string, argv: readonly string[], arms: readonly number[], atOnce = armsAtOnce()): Promise<number> {
  const queue = [...arms];
  const running = new Set<ReturnType<typeof spawn>>();
  let interrupted: NodeJS.Signals | null = null;
  const onInterrupt = (signal: NodeJS.Signals) => {
    interrupted ??= signal;
    for (const child of running) child.kill(signal);
  };
  for (const signal of STOPPING_SIGNALS) process.on(signal, onInterrupt);
  const lanes = Math.min(atOnce, arms.length);
  const updateThreads = armUpdateThreads(lanes);
  process.stderr.write(`train: ${arms.length} Nmax arms (${arms.join(', ')}), ${lanes} at a time\n`);
  const codes: number[] = [];
  const runArm = (nmax: number) =>
    new Promise<void>((resolve) => {
      const child = spawn(process.execPath, [...process.execArgv, script, ...armArgv(argv, nmax, updateThreads)], { stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      const label = `[nmax ${nmax}] `;
      for (const stream of [child.stdout, child.stderr]) {
        let pending = '';
        stream.on('data', (chunk: Buffer) => {
          // progress bars redraw with \r: pass on whole lines only
          const lines = (pending + chunk.toString()).split(/[\r\n]/);
          pending = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') process.stderr.write(`${label}${line}\n`);
        });
      }
      child.on('close', (code, signal) => {
        running.delete(child);
        codes.push(code ?? (signal === null ? 1 : 128 + constants.signals[signal]));
        resolve();
      });
    });
  const worker = async () => {
    for (let nmax = queue.shift(); nmax !== undefined && interrupted === null; nmax = queue.shift()) await runArm(nmax);
  };
  try {
    await Promise.all(Array.from({ length: lanes }, worker));
  } finally {
    for (const signal of STOPPING_SIGNALS) process.off(signal, onInterrupt);
  }
  return interrupted === null ? Math.max(0, ...codes) : 128 + constants.signals[interrupted];
}
