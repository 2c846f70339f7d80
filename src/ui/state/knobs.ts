/**
 * The experiment panel's knobs: which config property shows up front or under "More knobs", in
 * what order. Labels, help and choices come from the experiment's one list of properties
 * (EXPERIMENT_PROPERTIES in core/experiment.ts); the panel renders this list, nothing else does.
 */
import { EXPERIMENT_PROPERTIES, type ExperimentConfig, type ExperimentProperty } from '../../core/experiment';

type NumberProperty = Extract<ExperimentProperty, { kind: 'number' }>;
type ChoiceProperty = Extract<ExperimentProperty, { kind: 'choice' }>;
type MixProperty = Extract<ExperimentProperty, { kind: 'mix' }>;

export type Knob =
  | { kind: 'number'; key: NumberProperty['key']; label: string; help: string; main: boolean; testId?: string }
  | { kind: 'choice'; key: ChoiceProperty['key']; label: string; help: string; main: boolean; options: [string, string][] };

/** The panel's layout: up front (main), then under "More knobs"; a test id where e2e names the field. */
const LAYOUT: { key: Knob['key']; main: boolean; testId?: string }[] = [
  { key: 'nmax', main: true, testId: 'nmax-input' },
  { key: 'algorithm', main: true },
  { key: 'steps', main: true },
  { key: 'seed', main: true, testId: 'seed-input' },
  { key: 'learningRate', main: true },
  { key: 'promptsPerStep', main: true },
  { key: 'groupSize', main: true },
  { key: 'epochs', main: true },
  { key: 'clipEps', main: true },
  { key: 'klCoef', main: true },
  { key: 'filterLow', main: true },
  { key: 'filterHigh', main: true },
  { key: 'temperature', main: true },
  { key: 'maxResponseTokens', main: true },
  { key: 'format', main: false },
  { key: 'minibatchSize', main: false },
  { key: 'learningRateDecaySteps', main: false },
  { key: 'dualClip', main: false },
  { key: 'valueClip', main: false },
  { key: 'valueCoef', main: false },
  { key: 'klEstimator', main: false },
  { key: 'promptSampling', main: false },
  { key: 'gamma', main: false },
  { key: 'lambda', main: false },
  { key: 'gradClip', main: false },
  { key: 'maxOutputChars', main: false },
  { key: 'testEvery', main: false },
  { key: 'samplesPerStep', main: false },
  { key: 'sandboxTimeoutMs', main: false },
];

function property(key: string): ExperimentProperty {
  const found = EXPERIMENT_PROPERTIES.find((p) => p.key === key);
  if (!found) throw new Error(`no experiment property '${key}'`);
  return found;
}

export const KNOBS: Knob[] = LAYOUT.map(({ key, main, testId }): Knob => {
  const p = property(key);
  if (p.kind === 'choice') return { kind: 'choice', key: p.key, label: p.label, help: p.help, main, options: p.choices };
  if (p.kind === 'number') return { kind: 'number', key: p.key, label: p.label, help: p.help, main, ...(testId ? { testId } : {}) };
  throw new Error(`'${key}' is a mix: the panel shows it as a fieldset`);
});

/** A mix's legend: its label and, in the order of its fields, each part's name, so the two cannot disagree. */
export function mixLegend(key: MixProperty['key']): string {
  const mix = property(key) as MixProperty;
  return `${mix.label} (${mix.parts.map(([, label]) => label).join(' / ')})`;
}

/**
 * A choice field's options. A value that is none of them (a link's algorithm=evil) is listed as
 * itself, marked: a select without its value would show the first option while the field is flagged.
 */
export function choiceOptions(options: [string, string][], value: string): [string, string][] {
  return options.some(([choice]) => choice === value) ? options : [...options, [value, `${value} (not a choice)`]];
}

/** The kinds of problem with the lab's plain names. */
export const KIND_LABELS = (property('kindMix') as MixProperty).parts as [keyof ExperimentConfig['kindMix'], string][];

export const TIER_KEYS = (property('tierMix') as MixProperty).parts.map(([tier]) => tier) as (keyof ExperimentConfig['tierMix'])[];
