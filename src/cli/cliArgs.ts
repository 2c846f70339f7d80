/**
 * Shared flag handling for the CLIs: every ExperimentConfig knob is a kebab-case flag
 * (--learning-rate 2e-4), checked against the same bounds the lab uses. Bad input is a
 * UsageError: the CLI prints the message and the usage, and exits 2.
 */
import { parseArgs } from 'node:util';
import { configErrors, NUMERIC_BOUNDS, PRESETS, type ExperimentConfig } from '../core/experiment';
import { KINDS, type Kind } from '../core/tasks/problem';

export class UsageError extends Error {}

/** Where `npm run pretrain` writes the base model and the lab loads it: what train, sft and the benchmarks start from. */
export const DEFAULT_BASE_CHECKPOINT = 'public/models/base';

/**
 * A CLI's arguments from `parse`, or the exit code when there is nothing to run: 2 after a
 * UsageError (the message and the usage on stderr), 0 after --help (the usage on stdout).
 */
export function argsOrExitCode<T extends object>(command: string, usage: string, parse: () => T | 'help'): T | number {
  let args: T | 'help';
  try {
    args = parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${command}: ${error.message}\n${usage}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  return args;
}

export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** parseArgs option specs for every knob, all as strings (parsed and checked here). */
export function knobOptions(): Record<string, { type: 'string' }> {
  const names = [...Object.keys(NUMERIC_BOUNDS), 'algorithm', 'format', 'klEstimator', 'tierMix', 'kindMix'];
  return Object.fromEntries(names.map((n) => [kebab(n), { type: 'string' as const }]));
}

/** The preset with the flags applied; throws UsageError naming each bad flag. */
export function experimentFromFlags(presetName: string, flags: Record<string, string | boolean | undefined>): ExperimentConfig {
  const preset = PRESETS[presetName];
  if (!preset) throw new UsageError(`unknown preset '${presetName}' (known: ${Object.keys(PRESETS).join(', ')})`);
  return withKnobFlags(preset, flags);
}

/** `base` (a preset or a run's config) with the flags applied; throws UsageError naming each bad flag. */
export function withKnobFlags(base: ExperimentConfig, flags: Record<string, string | boolean | undefined>): ExperimentConfig {
  const config: ExperimentConfig = { ...base, tierMix: { ...base.tierMix }, kindMix: { ...base.kindMix } };
  for (const key of Object.keys(NUMERIC_BOUNDS) as (keyof typeof NUMERIC_BOUNDS)[]) {
    const raw = flags[kebab(key)];
    if (typeof raw !== 'string') continue;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new UsageError(`--${kebab(key)} needs a number, got '${raw}'`);
    config[key] = value;
  }
  if (typeof flags.algorithm === 'string') config.algorithm = flags.algorithm as ExperimentConfig['algorithm'];
  if (typeof flags.format === 'string') config.format = flags.format as ExperimentConfig['format'];
  if (typeof flags['kl-estimator'] === 'string') config.klEstimator = flags['kl-estimator'] as ExperimentConfig['klEstimator'];
  if (typeof flags['tier-mix'] === 'string') {
    const parts = flags['tier-mix'].split(',').map(Number);
    if (parts.length !== 3 || parts.some((p) => !Number.isFinite(p))) {
      throw new UsageError(`--tier-mix needs three numbers easy,medium,hard, got '${flags['tier-mix']}'`);
    }
    config.tierMix = { easy: parts[0], medium: parts[1], hard: parts[2] };
  }
  if (typeof flags['kind-mix'] === 'string') config.kindMix = kindMixFromFlag(flags['kind-mix']);
  const errors = Object.entries(configErrors(config));
  if (errors.length > 0) throw new UsageError(errors.map(([key, message]) => `--${kebab(key)}: ${message}`).join('\n'));
  return config;
}

/** `--kind-mix A,C,S,E` as a kind mix; its shares' bounds are for the caller's validation to judge. */
export function kindMixFromFlag(raw: string): Record<Kind, number> {
  const parts = raw.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
  if (parts.length !== KINDS.length || parts.some((p) => !Number.isFinite(p))) {
    throw new UsageError(`--kind-mix needs ${KINDS.length} numbers ${KINDS.join(',')}, got '${raw}'`);
  }
  return Object.fromEntries(KINDS.map((k, i) => [k, parts[i]])) as Record<Kind, number>;
}

export function knobUsage(): string {
  return Object.entries(NUMERIC_BOUNDS)
    .map(([key, [min, max]]) => `  --${kebab(key)} N`.padEnd(28) + `(${min}..${max})`)
    .concat([
      '  --algorithm ppo|reinforce++|grpo   (alias --algo)',
      '  --format zerotir|retool',
      '  --kl-estimator k1|k3',
      '  --tier-mix E,M,H             shares of easy, medium, hard arithmetic prompts',
      '  --kind-mix A,C,S,E           shares of arithmetic, compose, search, error-prone prompts',
    ])
    .join('\n');
}

/**
 * `--nmax -3` as `--nmax=-3`: node:util's parseArgs reads a value that starts with a dash as a
 * flag ("argument is ambiguous"), so a negative number would never reach the range check that
 * explains what the flag takes. Only numbers after flags that take a value are joined.
 */
export function joinNegativeValues(argv: string[], valueFlags: Iterable<string>): string[] {
  const takesValue = new Set(valueFlags);
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].startsWith('--') ? argv[i].slice(2) : null;
    const next = argv[i + 1];
    if (name !== null && takesValue.has(name) && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      joined.push(`${argv[i]}=${next}`);
      i++;
    } else joined.push(argv[i]);
  }
  return joined;
}

/** String flags by name plus --help (-h), strictly: an unknown or malformed flag is a UsageError. */
export function parseStringFlags(argv: string[], names: string[]): Record<string, string | boolean | undefined> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const name of names) options[name] = { type: 'string' };
  try {
    return parseArgs({ args: joinNegativeValues(argv, names), strict: true, options }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
