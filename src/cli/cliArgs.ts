/**
 * Shared flag handling for the CLIs: every property of EXPERIMENT_PROPERTIES is a kebab-case flag
 * (--learning-rate 2e-4), checked by the same configErrors the lab uses. Bad input is a
 * UsageError: the CLI prints the message and the usage, and exits 2.
 */
import { parseArgs } from 'node:util';
import { configErrors, decimalNumber, EXPERIMENT_PROPERTIES, PRESETS, type ExperimentConfig, type ExperimentProperty } from '../core/experiment';
import type { Kind } from '../core/tasks/problem';
import { withLaterKindZeros } from '../core/tasks/splits';

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
  return Object.fromEntries(EXPERIMENT_PROPERTIES.map((p) => [kebab(p.key), { type: 'string' as const }]));
}

/** The preset of that name, or a UsageError naming the known ones. */
export function presetConfig(presetName: string): ExperimentConfig {
  // own properties only: `--preset constructor` must not find Object's
  if (!Object.hasOwn(PRESETS, presetName)) throw new UsageError(`unknown preset '${presetName}' (known: ${Object.keys(PRESETS).join(', ')})`);
  return PRESETS[presetName];
}

/** The preset with the flags applied; throws UsageError naming each bad flag. */
export function experimentFromFlags(presetName: string, flags: Record<string, string | boolean | undefined>): ExperimentConfig {
  return withKnobFlags(presetConfig(presetName), flags);
}

/** `base` (a preset or a run's config) with the flags applied; throws UsageError naming each bad flag. */
export function withKnobFlags(base: ExperimentConfig, flags: Record<string, string | boolean | undefined>): ExperimentConfig {
  const config: ExperimentConfig = { ...base, tierMix: { ...base.tierMix }, kindMix: { ...base.kindMix } };
  const fields = config as unknown as Record<string, unknown>;
  for (const property of EXPERIMENT_PROPERTIES) {
    const flag = kebab(property.key);
    const raw = flags[flag];
    if (typeof raw !== 'string') continue;
    if (property.kind === 'number') {
      const value = decimalNumber(raw);
      if (value === null) throw new UsageError(`--${flag} needs a number, got '${raw}'`);
      fields[property.key] = value;
    } else if (property.kind === 'choice') {
      // configErrors names the allowed values when this is not one of them.
      fields[property.key] = raw;
    } else {
      fields[property.key] = mixFromFlag(property, raw);
    }
  }
  const errors = Object.entries(configErrors(config));
  if (errors.length > 0) throw new UsageError(errors.map(([key, message]) => `--${kebab(key)}: ${message}`).join('\n'));
  return config;
}

/**
 * `--tier-mix E,M,H` or `--kind-mix A,C,S,E,M` as shares by part; their bounds are for configErrors
 * to judge, but for a sum that overflows: 1e308 three times adds up to Infinity, and every share
 * divided by it to 0.
 */
function mixFromFlag(property: Extract<ExperimentProperty, { kind: 'mix' }>, raw: string): Record<string, number> {
  const written = raw.split(',').map(decimalNumber);
  const parts = property.key === 'kindMix' ? withLaterKindZeros(written) : written;
  const flag = `--${kebab(property.key)}`;
  if (parts.length !== property.parts.length || parts.some((p) => p === null)) {
    throw new UsageError(`${flag} needs ${property.parts.length} numbers ${property.parts.map(([part]) => part).join(',')}, got '${raw}'`);
  }
  const shares = parts as number[];
  if (!Number.isFinite(shares.reduce((a, b) => a + b, 0))) throw new UsageError(`${flag} shares add up past the largest number, got '${raw}'`);
  return Object.fromEntries(property.parts.map(([part], i) => [part, shares[i]]));
}

/** `raw` as a whole number from `min` to `max`, or a UsageError naming --flag. */
export function wholeNumberFlag(flag: string, raw: string, min: number, max: number): number {
  const value = decimalNumber(raw);
  if (value === null || !Number.isInteger(value) || value < min || value > max) {
    throw new UsageError(`--${flag} needs a whole number from ${min} to ${max}, got '${raw}'`);
  }
  return value;
}

/** `--kind-mix A,C,S,E,M,H` as a kind mix (pretrain's flag too); its shares' bounds are for the caller's validation to judge. */
export function kindMixFromFlag(raw: string): Record<Kind, number> {
  const kindMix = EXPERIMENT_PROPERTIES.find((p) => p.key === 'kindMix') as Extract<ExperimentProperty, { kind: 'mix' }>;
  return mixFromFlag(kindMix, raw) as Record<Kind, number>;
}

/** A line per knob for --help: the flag, its bounds or values, its help; a flag longer than the column still ends in a space. */
export function knobUsage(): string {
  const line = (flag: string, text: string) => `  ${flag} `.padEnd(50) + text;
  return EXPERIMENT_PROPERTIES.map((p) => {
    const flag = `--${kebab(p.key)}`;
    if (p.kind === 'number') return line(`${flag} N`, `(${p.min}..${p.max}) ${p.help}`);
    if (p.kind === 'choice') return line(`${flag} ${p.choices.map(([value]) => value).join('|')}`, `${p.key === 'algorithm' ? '(alias --algo) ' : ''}${p.help}`);
    return line(`${flag} ${p.parts.map(([part]) => part).join(',')}`, p.help);
  }).join('\n');
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

/** String flags by name, flags without a value (`switches`, e.g. force) and --help (-h), strictly: an unknown or malformed flag is a UsageError. */
export function parseStringFlags(argv: string[], names: string[], switches: string[] = []): Record<string, string | boolean | undefined> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const name of names) options[name] = { type: 'string' };
  for (const name of switches) options[name] = { type: 'boolean' };
  try {
    return parseArgs({ args: joinNegativeValues(argv, names), strict: true, options }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
