/**
 * `npm run train -- --nmax 0,1,2,4 [...]`: the arms of an Nmax sweep, each an ordinary `npm run
 * train` in its own process (`DIR/nmax-N`), as many at a time as the machine has cores. The engine
 * runs a process's kernels on one thread, so arms side by side are what use the other cores; each
 * arm's figures are those it gives alone (the same seed and config, the same numbers). Each line an
 * arm prints is passed on with its arm's name; Ctrl-C reaches every arm, and each saves its run.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
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
 * argv for one arm: `--nmax N` in place of the list, its own directory under --out (default
 * runs/sweep), and `--update-threads` (the arm's share of the cores) unless argv gives it.
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

/**
 * Runs the arms, `atOnce` at a time, each as `node <execArgv> <script> <arm argv>`; resolves to the
 * worst exit code (0 when every arm finished, 130 if Ctrl-C stopped them).
 */
export async function runNmaxArms(script: string, argv: readonly string[], arms: readonly number[], atOnce = armsAtOnce()): Promise<number> {
  const queue = [...arms];
  const running = new Set<ReturnType<typeof spawn>>();
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    for (const child of running) child.kill('SIGINT');
  };
  process.on('SIGINT', onInterrupt);
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
        codes.push(code ?? (signal === 'SIGINT' ? 130 : 1));
        resolve();
      });
    });
  const worker = async () => {
    for (let nmax = queue.shift(); nmax !== undefined && !interrupted; nmax = queue.shift()) await runArm(nmax);
  };
  try {
    await Promise.all(Array.from({ length: lanes }, worker));
  } finally {
    process.off('SIGINT', onInterrupt);
  }
  return interrupted ? 130 : Math.max(0, ...codes);
}
