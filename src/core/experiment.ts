/**
 * An experiment's whole configuration as plain data: what the CLI flags, the lab's knobs, the
 * URL hash and the exported run all carry. Presets are small named objects (nanoGPT's config
 * files); EXPERIMENT_PROPERTIES is the one list of its properties (TensorFlow Playground's state
 * list), from which the bounds, the checks, the CLI's flags, the URL and the lab's labels derive.
 */
import { batchMemoryError } from './memoryEstimate';
import type { RunOptions } from './sandbox/protocol';
import { KINDS, TIERS, type Kind, type Tier } from './tasks/problem';
import { ARITHMETIC_ONLY, withLaterKindShares } from './tasks/splits';
import type { PromptSampling } from './tasks/stepProblems';

/** The base model's context (512) less the longest prompt with its BOS (77, a chain question), rounded down to a multiple of 8 (test/tasks.test.ts). */
export const MAX_RESPONSE_TOKENS = 432;

export type Algorithm = 'ppo' | 'reinforce++' | 'grpo';
/** The tool-call formats a run can use; env/formats.ts writes out each. */
export type ToolFormatName = 'zerotir' | 'retool';

export interface ExperimentConfig {
  seed: number;
  /** RL steps to run. */
  steps: number;
  /** Cap on executed code calls per response; 0 = no tool. */
  nmax: number;
  format: ToolFormatName;
  algorithm: Algorithm;
  learningRate: number;
  /** Inverse-time decay of the learning rate (learningRateSchedule.ts): halved after this many steps; 0 = constant. */
  learningRateDecaySteps: number;
  promptsPerStep: number;
  /** Samples per prompt (the group). */
  groupSize: number;
  /** Passes over each step's rollouts. */
  epochs: number;
  /** Sequences per gradient step. */
  minibatchSize: number;
  clipEps: number;
  /**
   * Dual-clip PPO's bound c (verl's clip_ratio_c): where the advantage is negative the surrogate
   * is at least c * A, so a ratio far above 1 + clipEps cannot push an unbounded gradient. 0 = off.
   */
  dualClip: number;
  /** PPO value clipping range and loss weight. */
  valueClip: number;
  valueCoef: number;
  /** KL to the frozen base model; 0 turns the penalty off (the KL is still logged). */
  klCoef: number;
  klEstimator: 'k1' | 'k3';
  gamma: number;
  lambda: number;
  /** ZeroTIR's group filter: groups whose mean reward lies outside [low, high] are dropped. */
  filterLow: number;
  filterHigh: number;
  temperature: number;
  maxResponseTokens: number;
  /** Tool output is cut to this many characters, with a visible marker. */
  maxOutputChars: number;
  gradClip: number;
  /** Share of each tier among the arithmetic training prompts. */
  tierMix: Record<Tier, number>;
  /** Share of each kind of problem (arithmetic, compose, search, error-prone, multi-step, chain) in the training prompts. */
  kindMix: Record<Kind, number>;
  /** Each prompt drawn on its own, or each step's prompts spread over the mix in proportion (stepProblems.ts). */
  promptSampling: PromptSampling;
  /** Held-out greedy evaluation every this many steps (and at step 0). */
  testEvery: number;
  /** Decoded rollouts kept per step for the inspector and samples.jsonl. */
  samplesPerStep: number;
  sandboxTimeoutMs: number;
}

const CLASSROOM: ExperimentConfig = {
  seed: 1,
  // Code use has risen by step 40 (0.92 over steps 31-40 at seed 1): steps past it add a flat tail
  // that a power law does not have, and double the lesson. Over steps 1-80 the log-log R^2 was 0.78
  // for accuracy and code calls and length's rho 0.64; over 1-40, 0.90, 0.90 and 0.85 (docs/tasks.md).
  steps: 40,
  nmax: 2,
  format: 'zerotir',
  algorithm: 'ppo',
  // A rate that decays inverse in time: the summed updates grow as ln t, so code use rises from the
  // first steps and evenly over log-steps, the power law ZeroTIR fits. On the stage-6 base (seed 2):
  // a constant 1e-5 left code use at 0.1 for 12 steps and then switched it on. On the stage-12 base
  // with this mix, 5e-5 halved after 2 steps took code use from 0.14 at step 1 to 0.28 at step 3;
  // 2.5e-5 halved after 6 steps moves about half as far in the first two steps and nearly as far
  // in forty, and stays under 0.2 over steps 1-3 (docs/tasks.md).
  learningRate: 2.5e-5,
  learningRateDecaySteps: 6,
  // 32 prompts, not 16: a step's accuracy over 16 prompts moves more by chance than by training in
  // the first steps, which weigh most on log-steps.
  promptsPerStep: 32,
  groupSize: 8,
  epochs: 1,
  // Four gradient steps per batch of 256 (as OpenRLHF and verl split a rollout batch): after the
  // first, the policy has moved, so the ratio leaves 1 and the clip acts.
  minibatchSize: 64,
  clipEps: 0.2,
  // verl's default. It bounds the loss of a negative-advantage token only once its ratio passed 3,
  // so it guards runs set to many epochs or minibatches, where the ratio can run away.
  dualClip: 3,
  valueClip: 0.2,
  valueCoef: 0.5,
  klCoef: 0,
  klEstimator: 'k3',
  gamma: 1,
  lambda: 1,
  // Wider than ZeroTIR's 0.2-0.8: with groups of 8, the first tool successes come one per group
  // (1/8 = 0.125), which a 0.2 floor would drop.
  filterLow: 0.1,
  filterHigh: 0.9,
  temperature: 0.7,
  // The bound: a depth-5 chain (five divisions and the answer, up to 370 tokens in fences) with a failed call beside it.
  maxResponseTokens: MAX_RESPONSE_TOKENS,
  maxOutputChars: 64,
  gradClip: 1,
  tierMix: { easy: 0.25, medium: 0.25, hard: 0.5 },
  // Families that adopt code at different steps make the curves rise gradually (issue 11); chains
  // give a third, fourth and fifth call something to pay for (issue 22). Search and error-prone
  // questions are a twentieth each: the base answers them with code from the start (0.71 and 0.75
  // of its step-1 answers, against 0.04-0.10 for the other kinds), so at a tenth each code use
  // began at 0.21-0.26 and the lesson showed little of it emerging (docs/tasks.md).
  kindMix: { arithmetic: 0.35, compose: 0.15, search: 0.05, errorProne: 0.05, multiStep: 0.15, chain: 0.25 },
  // The same reason: every step holds each kind and tier in proportion.
  promptSampling: 'stratified',
  testEvery: 10,
  samplesPerStep: 4,
  sandboxTimeoutMs: 2000,
};

export const PRESETS: Record<string, ExperimentConfig> = {
  classroom: CLASSROOM,
  'no-tool': { ...CLASSROOM, nmax: 0 },
  // A demo of emergence in a minute: at 1e-4, code calls rise from 0.21 (steps 1-3) to 0.98 (steps
  // 21-25), seed 1 (stage-12 base, the classroom's mix; test/rlLearns.test.ts).
  quick: { ...CLASSROOM, steps: 60, promptsPerStep: 8, groupSize: 8, minibatchSize: 16, learningRate: 1e-4, learningRateDecaySteps: 0, promptSampling: 'independent', testEvery: 10 },
  // ReTool's comparison (docs/retool.md): PPO or Reinforce++ from the cold start and from the base,
  // each run from this setting. npm run sft draws the cold start's traces by its mix, the
  // classroom's of before 2026-12-05 (one drawn by the classroom's present mix began at 0.52
  // held-out accuracy, not 0.69). Its rate, faster than the classroom's and slower to decay, gives
  // RL the steps to shed the cold start's verbose drafts: from the cold start at seed 1 the length
  // fell 7% at the classroom's rate, 16% at 5e-5 halved after 2 steps, 21% at this one, and 26% at
  // a constant 5e-5, still falling at step 40 (docs/retool.md).
  retool: {
    ...CLASSROOM,
    learningRate: 7e-5,
    learningRateDecaySteps: 6,
    kindMix: { arithmetic: 0.3, compose: 0.15, search: 0.1, errorProne: 0.1, multiStep: 0.15, chain: 0.2 },
  },
  // Sized so that five runs (Nmax 0, 1, 2, 4, 8) and their evaluations finished in under an hour here
  // in the five-kind world; with the chains, not measured alone (docs/tasks.md).
  // More multi-step and chain prompts than the classroom's: they are where a second call and more pay.
  ablation: {
    ...CLASSROOM,
    steps: 60,
    promptsPerStep: 12,
    groupSize: 8,
    minibatchSize: 24,
    // The rate and draws the sweep was measured with (docs/tasks.md): a sweep compares the arms'
    // ends, not the shape of their rise.
    learningRate: 3e-5,
    learningRateDecaySteps: 0,
    promptSampling: 'independent',
    testEvery: 20,
    kindMix: { arithmetic: 0.2, compose: 0.1, search: 0.05, errorProne: 0.1, multiStep: 0.2, chain: 0.35 },
  },
};

export const DEFAULT_PRESET = 'classroom';

type NumericKey = { [K in keyof ExperimentConfig]: ExperimentConfig[K] extends number ? K : never }[keyof ExperimentConfig];
type ChoiceKey = 'algorithm' | 'format' | 'klEstimator' | 'promptSampling';
type MixKey = 'tierMix' | 'kindMix';

/** What every property has: its name in the config, a label and a line of help (the lab's field, the CLI's --help). */
interface PropertyText {
  label: string;
  help: string;
}

/**
 * One property of the config: a number with its bounds, a choice among values (each with its
 * label), or a mix of named shares (each part with its label).
 */
export type ExperimentProperty =
  | (PropertyText & { kind: 'number'; key: NumericKey; min: number; max: number; integer: boolean })
  | (PropertyText & { kind: 'choice'; key: ChoiceKey; choices: [string, string][] })
  | (PropertyText & { kind: 'mix'; key: MixKey; parts: [string, string][] });

/** The kinds' plain names, where the lab shows them. */
const KIND_LABELS: Record<Kind, string> = { arithmetic: 'arithmetic', compose: 'compose', search: 'search', errorProne: 'error-prone', multiStep: 'multi-step', chain: 'chain' };

const number = (key: NumericKey, min: number, max: number, integer: boolean, label: string, help: string): ExperimentProperty =>
  ({ kind: 'number', key, min, max, integer, label, help });

/**
 * Every property of ExperimentConfig, once, in the order the URL hash and `--help` list them. The
 * CLI and the lab refuse values outside the bounds (configErrors).
 */
export const EXPERIMENT_PROPERTIES: readonly ExperimentProperty[] = [
  number('seed', 0, 2 ** 31 - 1, true, 'Seed', 'The starting point of the dice the model rolls: the same seed and knobs give the same run, number for number.'),
  number('steps', 0, 100_000, true, 'Training steps', 'How many rounds of practice (steps) the run does before it stops.'),
  number('nmax', 0, 16, true, 'Nmax (code calls)', 'How many times one answer may run Python; 0 = no tool at all.'),
  number('learningRate', 1e-7, 1e-1, false, 'Learning rate', 'How big a change each practice round makes to the model: too small learns nothing, too big forgets what it knew.'),
  number('learningRateDecaySteps', 0, 100_000, false, 'Learning-rate decay (steps)', 'Makes the changes smaller as the run goes on: after N steps they are half as big, after 3N a quarter; 0 = never smaller.'),
  number('promptsPerStep', 1, 256, true, 'Prompts per step', 'How many questions the model answers in each step.'),
  number('groupSize', 1, 64, true, 'Answers per question (group size)', 'How many times the model answers the same question (its group); Reinforce++ and GRPO compare each answer with the others of its group, and every algorithm can drop a group that is all right or all wrong (the group filter).'),
  number('epochs', 1, 16, true, 'Passes per step (epochs)', 'How many times the model learns from the same step’s answers before writing new ones.'),
  number('minibatchSize', 1, 1024, true, 'Answers learnt at once (minibatch)', 'How many answers the model learns from at once; a step’s answers are split into pieces of this size.'),
  number('clipEps', 0, 1, false, 'Update limit (clip ε)', 'How far one step may change how likely the model is to write each piece of an answer (0.2 = by a fifth at most).'),
  number('dualClip', 0, 100, false, 'Second update limit (dual clip c)', 'A second limit for answers that did worse than expected: they are pushed down no harder than c times; 0 = off.'),
  number('valueClip', 0, 10, false, 'Critic update limit (value clip)', 'PPO only: how far one step may change the critic’s guess of the reward.'),
  number('valueCoef', 0, 10, false, 'Critic weight (value loss)', 'PPO only: how much learning to guess the reward (the critic) counts beside learning to answer.'),
  number('klCoef', 0, 10, false, 'Stay near the start (KL coef.)', 'How strongly the model is held close to how it wrote at the start, so it does not drift into nonsense; 0 = not at all, and then the drift is not measured (the start model is not run: the update takes a quarter less time).'),
  number('gamma', 0, 1, false, 'Credit reach (γ)', 'PPO only: how much a reward counts for the pieces of an answer written long before it (1 = fully).'),
  number('lambda', 0, 1, false, 'Trust the reward (λ)', 'PPO only: how much the credit for each piece of an answer comes from the actual reward (1) rather than from the critic’s guesses (0).'),
  number('filterLow', 0, 1, false, 'Drop groups below (filter low)', 'Groups whose share of right answers is below this teach nothing (all wrong) and are dropped.'),
  number('filterHigh', 0, 1, false, 'Drop groups above (filter high)', 'Groups whose share of right answers is above this teach nothing (all right) and are dropped.'),
  number('temperature', 0, 5, false, 'Randomness (temperature)', 'How adventurous the model is when it writes: higher tries more varied answers, 0 always takes its favourite next character.'),
  // MAX_RESPONSE_TOKENS: the context less the longest prompt.
  number('maxResponseTokens', 8, MAX_RESPONSE_TOKENS, true, 'Longest answer (tokens)', 'An answer is cut off after this many characters (tokens), Python output included.'),
  number('maxOutputChars', 8, 4096, true, 'Longest Python output (characters)', 'Python output longer than this many characters is cut short before the model reads it.'),
  number('gradClip', 1e-6, 1000, false, 'Largest change (grad clip)', 'A safety limit on the size of one change to the model (gradient norm); bigger changes are scaled down to it.'),
  number('testEvery', 1, 100_000, true, 'Test every (steps)', 'Every N steps the model also takes a fixed test of questions it never practises on (the orange line).'),
  number('samplesPerStep', 0, 1024, true, 'Answers kept to read', 'How many of each step’s answers are kept to read in the “All answers” tab.'),
  number('sandboxTimeoutMs', 10, 60_000, true, 'Python time limit (ms)', 'How long one Python run may take before it is stopped.'),
  {
    kind: 'choice',
    key: 'algorithm',
    label: 'Algorithm',
    help: 'How answers are compared: PPO also trains a critic that guesses the reward; Reinforce++ and GRPO compare each answer with the other answers to its question.',
    choices: [
      ['ppo', 'PPO'],
      ['reinforce++', 'Reinforce++'],
      ['grpo', 'GRPO'],
    ],
  },
  {
    kind: 'choice',
    key: 'format',
    label: 'Tool format',
    help: 'How the model marks its Python: ```python blocks (ZeroTIR) or <code> tags (ReTool). It must be the one the start model has read.',
    choices: [
      ['zerotir', 'ZeroTIR (```python)'],
      ['retool', 'ReTool (<code>)'],
    ],
  },
  { kind: 'choice', key: 'klEstimator', label: 'Drift measure (KL estimator)', help: 'Two ways to measure how far the model has drifted from the start: k1 is the plain measure and can dip below 0; k3 never goes below 0 and jumps around less.', choices: [['k1', 'k1'], ['k3', 'k3']] },
  {
    kind: 'mix',
    key: 'tierMix',
    label: 'Difficulty mix',
    help: 'How many of the arithmetic questions are easy, medium and hard (shares, need not add up to 1).',
    parts: TIERS.map((tier) => [tier, tier]),
  },
  {
    kind: 'mix',
    key: 'kindMix',
    label: 'Kinds of problem',
    help: 'How many questions of each kind the model gets (shares, need not add up to 1).',
    parts: KINDS.map((kind) => [kind, KIND_LABELS[kind]]),
  },
  {
    kind: 'choice',
    key: 'promptSampling',
    label: 'How questions are drawn',
    help: 'Independent: each question is drawn on its own. Stratified: each step holds every kind and difficulty in proportion, so its accuracy jumps around less by chance.',
    choices: [
      ['independent', 'independent'],
      ['stratified', 'stratified'],
    ],
  },
];

type NumberProperty = Extract<ExperimentProperty, { kind: 'number' }>;

/** Bounds of every numeric knob: [min, max, integer?], from EXPERIMENT_PROPERTIES. */
export const NUMERIC_BOUNDS = Object.fromEntries(
  EXPERIMENT_PROPERTIES.filter((p): p is NumberProperty => p.kind === 'number').map((p) => [p.key, [p.min, p.max, p.integer]]),
) as Record<NumericKey, [number, number, boolean]>;

/**
 * What is wrong with a list of Nmax values (an evaluation's budgets, a sweep's arms), or null: at
 * least one, each a whole number within the knob's bounds, each once (a value twice would train or
 * score the same arm twice under one name).
 */
export function nmaxListError(values: unknown): string | null {
  const [, high] = NUMERIC_BOUNDS.nmax;
  if (!Array.isArray(values) || values.length === 0) return 'give at least one Nmax value';
  if (values.some((n) => !Number.isInteger(n) || n < 0 || n > high)) return `Nmax values must be whole numbers from 0 to ${high}`;
  if (new Set(values).size !== values.length) return 'each Nmax value once';
  return null;
}

/** Digits with an optional sign, point and exponent: what a number in a flag or a link may look like. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * `raw` as a number when it is written in decimal and finite, else null. Number() alone takes
 * `0x10` (16), `0b11`, `0o7`, ' 5 ', '' (0) and 'Infinity'.
 */
export function decimalNumber(raw: string): number | null {
  const value = Number(raw);
  return DECIMAL.test(raw) && Number.isFinite(value) ? value : null;
}

/** "a, b or c". */
function oneOf(values: string[]): string {
  return values.length === 1 ? values[0] : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}

/**
 * The sandbox's limits for a run's (or a checkpoint's) code calls: its time limit, and room in bytes
 * for maxOutputChars characters of UTF-8 (at most 4 bytes each; the episode cuts to characters).
 */
export function sandboxRunOptions(limits: Pick<ExperimentConfig, 'sandboxTimeoutMs' | 'maxOutputChars'>): RunOptions {
  return { timeoutMs: limits.sandboxTimeoutMs, maxOutputBytes: Math.max(4 * limits.maxOutputChars, 1024) };
}

/**
 * A config saved before a knob existed, given the value that reproduces what its run did: kindMix
 * arithmetic only (the other kinds did not exist), multiStep and chain shares of 0 in a kindMix saved
 * before that kind, dualClip 0 (there was no dual clip), learningRateDecaySteps 0 (the rate was
 * constant), promptSampling independent (each prompt was drawn on its own). Every other field is
 * left as saved, for configErrors to judge. Not an object: returned as it is.
 */
export function withSavedConfigDefaults<T>(config: T): T {
  if (typeof config !== 'object' || config === null) return config;
  const saved = config as Partial<ExperimentConfig>;
  const kindMix = typeof saved.kindMix === 'object' && saved.kindMix !== null ? withLaterKindShares(saved.kindMix) : (saved.kindMix ?? { ...ARITHMETIC_ONLY });
  return {
    ...config,
    kindMix,
    dualClip: saved.dualClip ?? 0,
    learningRateDecaySteps: saved.learningRateDecaySteps ?? 0,
    promptSampling: saved.promptSampling ?? 'independent',
  };
}

/** Problems with a config, one message per offending field (empty when valid). */
export function configErrors(config: ExperimentConfig): Partial<Record<keyof ExperimentConfig, string>> {
  const errors: Partial<Record<keyof ExperimentConfig, string>> = {};
  for (const property of EXPERIMENT_PROPERTIES) {
    const { key } = property;
    if (property.kind === 'number') {
      const value = config[property.key];
      if (typeof value !== 'number' || !Number.isFinite(value)) errors[key] = `${key} must be a number`;
      else if (property.integer && !Number.isInteger(value)) errors[key] = `${key} must be a whole number`;
      else if (value < property.min || value > property.max) errors[key] = `${key} must be between ${property.min} and ${property.max}`;
    } else if (property.kind === 'choice') {
      const values = property.choices.map(([value]) => value);
      if (!values.includes(config[property.key])) errors[key] = `${key} must be ${oneOf(values)}`;
    } else {
      const mix = config[property.key] as Record<string, unknown> | undefined;
      const shares = mix ? property.parts.map(([part]) => mix[part]) : [];
      const total = (shares as number[]).reduce((a, b) => a + b, 0);
      // a sum past the largest number (1e308 three times) would make every share 0 once divided by it
      if (shares.some((s) => typeof s !== 'number' || !(s >= 0) || !Number.isFinite(s)) || !(total > 0) || !Number.isFinite(total)) {
        errors[key] = `${key} needs non-negative ${property.parts.map(([part]) => part).join(', ')} shares that are not all 0`;
      }
    }
  }
  if (!errors.dualClip && config.dualClip !== 0 && config.dualClip <= 1) errors.dualClip = 'dualClip must be 0 (off) or above 1';
  if (!errors.filterLow && !errors.filterHigh && config.filterLow > config.filterHigh) {
    errors.filterLow = 'filterLow must not exceed filterHigh';
  }
  // Each knob may be in range while their product is more than a step can hold (memoryEstimate.ts).
  const tooLarge = errors.promptsPerStep || errors.groupSize ? null : batchMemoryError(config);
  if (tooLarge) errors.promptsPerStep = tooLarge;
  return errors;
}
