/**
 * npm run train -- --preset classroom --seed 1 --nmax 2 --algo ppo --out runs/x
 * npm run train -- --resume runs/x [--steps N]
 *
 * RL from the shipped base model, headless: writes DIR/metrics.jsonl (one line per step, step 0
 * is the base model's held-out accuracy), DIR/samples.jsonl, DIR/summary.json and
 * DIR/checkpoint/ (the weights and the whole trainer state). Same seed and config, same numbers;
 * --resume continues a stopped run exactly where it stopped, appending to its files. The
 * checkpoint is saved every --save-every steps, at the budget, on Ctrl-C, SIGTERM or SIGHUP (exit
 * 130, 143, 129: the step in flight is dropped) and when a step fails (exit 1), always as the last
 * completed step and atomically. A directory that already holds a run is refused unless --force
 * says to replace it.
 */
import { mkdirSync, writeFileSync, appendFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkpointFormat } from '../core/eval/checkpointLimits';
import { DEFAULT_PRESET, NUMERIC_BOUNDS, PRESETS, type ExperimentConfig } from '../core/experiment';
import { summariseRun } from '../core/metrics/runSummary';
import type { StepMetrics } from '../core/metrics/stepMetrics';
import { openRun } from '../core/rl/openRun';
import type { StepRecord } from '../core/rl/trainer';
import { loadCheckpointDir, saveCheckpointDirAtomically } from '../node/checkpointFiles';
import { fileInTheWay } from '../node/fileInTheWay';
import { runFilesIn } from '../node/runDirectory';
import { createNodeSandbox } from '../node/sandbox/nodeSandbox';
import { defaultUpdateThreads, startGradientThreads } from '../node/gradients/gradientThreads';
import { useNodeBackend, type NodeBackend } from '../node/tfBackend';
import { argsOrExitCode, DEFAULT_BASE_CHECKPOINT, experimentFromFlags, joinNegativeValues, knobOptions, knobUsage, UsageError, wholeNumberFlag } from './cliArgs';
import { drawProgress, outliveClosedStderr, progressLine, yieldToEventLoop } from './progress';
import { openRunToResume, ResumeError, type ResumedRun } from './resumeRun';
import { runEndReport } from './runSummaryLine';
import { nmaxArms, runNmaxArms, withOneNmax } from './nmaxArms';
import { runMain } from './runMain';
import { Interrupt, isAbandoned, trainToBudget, unlessInterrupted, type CompletedStep, type LoopOutcome } from './trainLoop';

/**
 * Steps between checkpoints: a kill the CLI cannot answer (SIGKILL, a crash, a power cut) loses
 * at most this many steps (about 5 min of a classroom run here). A save (2 MB, flushed) took
 * 56-141 ms here: under 1% of a classroom step, but up to 5% of a 2-3 s quick-preset step if made
 * at every step.
 */
const DEFAULT_SAVE_EVERY = 10;
const MAX_UPDATE_THREADS = 16;

const USAGE = `usage: npm run train -- [--preset ${Object.keys(PRESETS).join('|')}] [--seed N] [--steps N] [--nmax N]
                        [--algo ppo|reinforce++|grpo] [--out DIR [--force]] [--base CHECKPOINT_DIR] [--backend wasm|cpu]
                        [--save-every N] [--update-threads N] [knobs]
                        --force replaces a run already in DIR (without it, such a DIR is refused)
                        --save-every N saves the checkpoint every N steps (default ${DEFAULT_SAVE_EVERY}), besides at the end and on Ctrl-C, SIGTERM, SIGHUP
                        --update-threads N shares each update over N threads (default: the cores, at most 4); the figures are the same
                        --nmax N,N,... trains one run per Nmax in DIR/nmax-N (DIR: --out, default runs/sweep), one process per core at a time
       npm run train -- --resume DIR [--steps N] [--backend wasm|cpu] [--save-every N] [--update-threads N] [--base START_DIR]
                        continues the run in DIR exactly where it stopped, up to step N (default: its own steps);
                        a run from the lab (npm run runfile -- unpack) finds its start model among the shipped
                        ones by fingerprint, or at --base
knobs (each overrides the preset):
${knobUsage()}`;

/** --resume takes the run's own config; only these flags may come with it. */
const RESUME_FLAGS = ['resume', 'steps', 'backend', 'save-every', 'base', 'update-threads'];

interface ResumeArgs {
  resume: string;
  steps: number | undefined;
  backend: NodeBackend;
  saveEvery: number;
  updateThreads: number;
  /** Where the run's start model is, when not where the run recorded it (a run from the lab). */
  base: string | undefined;
}

interface TrainArgs {
  resume?: undefined;
  config: ExperimentConfig;
  preset: string;
  out: string;
  base: string;
  backend: NodeBackend;
  /** --format was given (else a base checkpoint tuned on a format brings its own). */
  formatGiven: boolean;
  /** --force: replace a run already in `out`. */
  force: boolean;
  saveEvery: number;
  /** Threads that share each update (this one and its gradient threads); no figure depends on it. */
  updateThreads: number;
}

const STRING = { type: 'string' as const };

function parseTrainArgs(argv: string[]): TrainArgs | ResumeArgs | 'help' {
  let parsed;
  const valueFlags = { ...knobOptions(), preset: STRING, algo: STRING, out: STRING, base: STRING, backend: STRING, resume: STRING, 'save-every': STRING, 'update-threads': STRING };
  try {
    parsed = parseArgs({
      args: joinNegativeValues(argv, Object.keys(valueFlags)),
      strict: true,
      allowPositionals: false,
      options: { ...valueFlags, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const flags = parsed.values as Record<string, string | boolean | undefined>;
  if (flags.help) return 'help';
  const backend = (flags.backend as string | undefined) ?? 'wasm';
  if (backend !== 'wasm' && backend !== 'cpu') throw new UsageError(`--backend must be wasm or cpu, got '${backend}'`);
  const rawSaveEvery = flags['save-every'] as string | undefined;
  const saveEvery = rawSaveEvery === undefined ? DEFAULT_SAVE_EVERY : wholeNumberFlag('save-every', rawSaveEvery, 1, NUMERIC_BOUNDS.steps[1]);
  const rawThreads = flags['update-threads'] as string | undefined;
  const updateThreads = rawThreads === undefined ? defaultUpdateThreads() : wholeNumberFlag('update-threads', rawThreads, 1, MAX_UPDATE_THREADS);
  if (typeof flags.resume === 'string') return { ...parseResumeArgs(flags, backend, saveEvery), updateThreads };
  if (typeof flags.algo === 'string') flags.algorithm = flags.algo;
  const preset = (flags.preset as string | undefined) ?? DEFAULT_PRESET;
  const config = experimentFromFlags(preset, flags);
  return {
    config,
    preset,
    backend,
    base: (flags.base as string | undefined) ?? DEFAULT_BASE_CHECKPOINT,
    out: (flags.out as string | undefined) ?? join('runs', `${preset}-seed${config.seed}-nmax${config.nmax}-${config.algorithm}`),
    formatGiven: typeof flags.format === 'string',
    force: flags.force === true,
    saveEvery,
    updateThreads,
  };
}

function parseResumeArgs(flags: Record<string, string | boolean | undefined>, backend: NodeBackend, saveEvery: number): Omit<ResumeArgs, 'updateThreads'> {
  const others = Object.keys(flags).filter((name) => flags[name] !== undefined && !RESUME_FLAGS.includes(name));
  if (others.length > 0) {
    throw new UsageError(`--resume continues the run with its own config: ${others.map((name) => `--${name}`).join(', ')} cannot come with it`);
  }
  const raw = flags.steps as string | undefined;
  const steps = raw === undefined ? undefined : wholeNumberFlag('steps', raw, NUMERIC_BOUNDS.steps[0], NUMERIC_BOUNDS.steps[1]);
  return { resume: flags.resume as string, steps, backend, saveEvery, base: flags.base as string | undefined };
}

function figures(m: StepMetrics, lastTest: number | null): string {
  const f = (x: number | null, digits = 2) => (x === null ? '--' : x.toFixed(digits));
  return `acc ${f(m.accuracy)} code ${f(m.codeCallFrequency)} calls ${f(m.callsPerResponse)} len ${f(m.responseLength, 0)} test ${f(lastTest)}`;
}

/** A run ready to train: a new one from its base (step 0, no history), or a stopped one from its directory. */
type RunSetup = ResumedRun & { out: string };

/** Why a new run cannot start in args.out from args.base, said before any work; null when it can. */
function newRunRefusal(args: TrainArgs): string | null {
  const { out } = args;
  const file = fileInTheWay(out);
  if (file !== null) return `--out ${out} cannot be a run directory: ${file} is a file`;
  const existing = runFilesIn(out);
  if (existing.length > 0 && !args.force) {
    return `${out} already holds a run (${existing.join(', ')}); pass --force to replace it, --resume ${out} to continue it, or another --out`;
  }
  if (!existsSync(join(args.base, 'model.json'))) return `no base checkpoint at ${args.base} (run npm run pretrain, or pass --base DIR)`;
  return null;
}

/** A new run from its base checkpoint (newRunRefusal found none), or the exit code when it cannot start. */
async function newRun(args: TrainArgs): Promise<RunSetup | number> {
  const { config, out } = args;
  const existing = runFilesIn(out);
  const { model, meta: baseMeta, fingerprint } = await loadCheckpointDir(args.base);
  const tunedFormat = checkpointFormat(baseMeta);
  if (tunedFormat !== null && tunedFormat !== config.format) {
    if (args.formatGiven) {
      process.stderr.write(`train: ${args.base} was tuned on the ${tunedFormat} format; --format ${config.format} would never see its code run\n`);
      model.dispose();
      return 2;
    }
    config.format = tunedFormat;
  }
  // --force: nothing of the replaced run may survive beside the new one (its checkpoint, its summary).
  for (const name of existing) rmSync(join(out, name), { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'metrics.jsonl'), '');
  writeFileSync(join(out, 'samples.jsonl'), '');
  return {
    config,
    preset: args.preset,
    out,
    model,
    reference: model,
    referenceIdentity: { fingerprint, source: args.base },
    saved: null,
    step: 0,
    base: { path: args.base, meta: baseMeta },
    history: [],
    wallSecondsBefore: 0,
  };
}

/** The stopped run in args.resume, or the exit code when it cannot continue. */
async function resumedRun(args: ResumeArgs): Promise<RunSetup | number> {
  try {
    return { ...(await openRunToResume(args.resume, args.steps, args.base)), out: args.resume };
  } catch (error) {
    if (!(error instanceof ResumeError)) throw error;
    process.stderr.write(`train: ${error.message}\n`);
    return 2;
  }
}

async function main(): Promise<number> {
  outliveClosedStderr();
  const argv = process.argv.slice(2);
  // The flags are checked here, as an arm reads them, so that a bad one is said once, not by every arm.
  const sweep = argsOrExitCode('train', USAGE, () => {
    const arms = nmaxArms(argv);
    return arms !== null && parseTrainArgs(withOneNmax(argv, arms[0])) === 'help' ? 'help' : { arms };
  });
  if (typeof sweep === 'number') return sweep;
  if (sweep.arms) return runNmaxArms(process.argv[1], argv, sweep.arms);
  const args = argsOrExitCode('train', USAGE, () => parseTrainArgs(argv));
  if (typeof args === 'number') return args;
  const refusal = args.resume === undefined ? newRunRefusal(args) : null;
  if (refusal !== null) {
    process.stderr.write(`train: ${refusal}\n`);
    return 2;
  }
  // Heard from here on, so a signal while the run is set up (a resume rewriting its files) waits
  // for that and saves; every one is heard (not once): through npm a single Ctrl-C can arrive twice
  // (the terminal's and npm's forwarded copy), and Node's default action on the second would kill
  // the save. SIGTERM (timeout, Slurm, docker stop, systemd) and SIGHUP (a closed terminal) stop
  // a run as Ctrl-C does.
  const interrupt = new Interrupt();
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => interrupt.request(signal));
  await useNodeBackend(args.backend);
  const setup = args.resume === undefined ? await newRun(args) : await resumedRun(args);
  if (typeof setup === 'number') return setup;
  const { config, out, model, history } = setup;
  const threads = await startGradientThreads(args.updateThreads - 1, args.backend);
  const sandbox = createNodeSandbox({ size: 2 });
  const { trainer, notices } = openRun(config, sandbox, { model, step: setup.step, saved: setup.saved }, [{ model: setup.reference, identity: setup.referenceIdentity }], threads.helpers);
  for (const notice of notices) process.stderr.write(`train: ${notice}\n`);
  if (setup.reference !== model) setup.reference.dispose();
  const metricsPath = join(out, 'metrics.jsonl');
  const samplesPath = join(out, 'samples.jsonl');

  const started = performance.now();
  let lastTest: number | null = null;
  for (const m of history) if (m.testAccuracy !== null) lastTest = m.testAccuracy;
  const record = (r: StepRecord) => {
    history.push(r.metrics);
    if (r.metrics.testAccuracy !== null) lastTest = r.metrics.testAccuracy;
    appendFileSync(metricsPath, `${JSON.stringify(r.metrics)}\n`);
    for (const s of r.samples) appendFileSync(samplesPath, `${JSON.stringify(s)}\n`);
  };
  /** Writes the checkpoint and summary.json of the run as it stood at `saved`'s step (synchronously: see saveCheckpointDirAtomically). */
  const finish = (saved: CompletedStep) => {
    const { step } = saved.progress;
    const state = { ...saved.progress, config, reference: setup.referenceIdentity };
    saveCheckpointDirAtomically(join(out, 'checkpoint'), saved.model, { kind: 'rl', preset: setup.preset, config, step, base: setup.base }, state);
    const wallSeconds = setup.wallSecondsBefore + (performance.now() - started) / 1000;
    const summary = {
      preset: setup.preset,
      seed: config.seed,
      config,
      backend: args.backend,
      base: setup.base.path,
      wallSeconds,
      stepsCompleted: step,
      initialTestAccuracy: history[0]?.testAccuracy ?? null,
      finalTestAccuracy: lastTest,
      ...summariseRun(history, config),
    };
    // Whole or not at all: a resume reads the wall time so far from it.
    writeFileSync(join(out, 'summary.json.tmp'), `${JSON.stringify(summary, null, 2)}\n`);
    renameSync(join(out, 'summary.json.tmp'), join(out, 'summary.json'));
    return wallSeconds;
  };
  let outcome: LoopOutcome | null = null;
  try {
    if (history.length === 0) {
      const first = await unlessInterrupted(trainer.initialRecord(), interrupt);
      if (!isAbandoned(first) && !interrupt.requested) record(first);
    }
    if (history.length > 0) drawProgress(progressLine(trainer.step, config.steps, started, figures(history.at(-1)!, lastTest)));
    outcome = await trainToBudget(trainer, model, config.steps, {
      record: async (r) => {
        record(r);
        drawProgress(progressLine(trainer.step, config.steps, started, figures(r.metrics, lastTest)));
        await yieldToEventLoop();
      },
      completed: (saved) => {
        if (saved.progress.step % args.saveEvery === 0 && saved.progress.step < config.steps) finish(saved);
      },
      interrupt,
    });
    const wall = finish(outcome.saved);
    const end = outcome.status === 'interrupted' ? { status: outcome.status, signal: interrupt.signal ?? 'SIGINT' } : outcome;
    const report = runEndReport(end, out, outcome.saved.progress.step, config.steps, wall, history);
    if (args.updateThreads > 1) process.stderr.write(`updates on ${args.updateThreads} threads: the gradient threads computed ${threads.chunksDone()} chunks\n`);
    process.stderr.write(report.text);
    // Saved: exit now. The step abandoned at the signal may hold the event loop for seconds (its tfjs
    // work runs as microtask chains), and the interpreters the cleanup would close died with it.
    if (outcome.status === 'interrupted') process.exit(report.exitCode);
    return report.exitCode;
  } finally {
    outcome?.saved.model.dispose();
    trainer.dispose();
    model.dispose();
    await Promise.all([sandbox.close(), threads.close()]);
  }
}

await runMain('train', main);
