/**
 * The experiment panel's knobs as data: which config property, its label, a line of help, and
 * whether it shows up front or under "More knobs". The panel renders this list; nothing else does.
 */
import type { ExperimentConfig, NUMERIC_BOUNDS } from '../../core/experiment';

type NumericKey = keyof typeof NUMERIC_BOUNDS;

export type Knob =
  | { kind: 'number'; key: NumericKey; label: string; help: string; main: boolean; testId?: string }
  | { kind: 'choice'; key: 'algorithm' | 'format' | 'klEstimator'; label: string; help: string; main: boolean; options: [string, string][] };

export const KNOBS: Knob[] = [
  { kind: 'number', key: 'nmax', label: 'Nmax (code calls)', help: 'Most executed code calls per answer; 0 = no tool.', main: true, testId: 'nmax-input' },
  {
    kind: 'choice',
    key: 'algorithm',
    label: 'Algorithm',
    help: 'PPO learns a value head; Reinforce++ and GRPO use the group as baseline.',
    main: true,
    options: [
      ['ppo', 'PPO'],
      ['reinforce++', 'Reinforce++'],
      ['grpo', 'GRPO'],
    ],
  },
  { kind: 'number', key: 'steps', label: 'RL steps', help: 'The run stops after this many steps.', main: true },
  { kind: 'number', key: 'seed', label: 'Seed', help: 'Same seed and knobs, same run.', main: true, testId: 'seed-input' },
  { kind: 'number', key: 'learningRate', label: 'Learning rate', help: 'Adam step size.', main: true },
  { kind: 'number', key: 'promptsPerStep', label: 'Prompts per step', help: 'Questions sampled each step.', main: true },
  { kind: 'number', key: 'groupSize', label: 'Answers per question (group size)', help: 'Answers sampled per question; each is judged against the others of its group.', main: true },
  { kind: 'number', key: 'epochs', label: 'Passes per step (epochs)', help: 'Passes over each step’s answers.', main: true },
  { kind: 'number', key: 'clipEps', label: 'Update limit (clip ε)', help: 'PPO ratio clipping: how far one update may move the probability of a token.', main: true },
  { kind: 'number', key: 'klCoef', label: 'Stay near the start (KL coef.)', help: 'Pull towards the start model; 0 = off (still logged).', main: true },
  { kind: 'number', key: 'filterLow', label: 'Drop groups below (filter low)', help: 'Groups whose share of right answers is below this teach nothing (all wrong) and are dropped.', main: true },
  { kind: 'number', key: 'filterHigh', label: 'Drop groups above (filter high)', help: 'Groups whose share of right answers is above this teach nothing (all right) and are dropped.', main: true },
  { kind: 'number', key: 'temperature', label: 'Randomness (temperature)', help: 'Sampling temperature of the policy: higher tries more varied answers.', main: true },
  { kind: 'number', key: 'maxResponseTokens', label: 'Longest answer (tokens)', help: 'Answer length cap, tool output included.', main: true },
  {
    kind: 'choice',
    key: 'format',
    label: 'Tool format',
    help: 'ZeroTIR fences or ReTool tags.',
    main: false,
    options: [
      ['zerotir', 'ZeroTIR (```python)'],
      ['retool', 'ReTool (<code>)'],
    ],
  },
  { kind: 'number', key: 'minibatchSize', label: 'Minibatch', help: 'Sequences per gradient step.', main: false },
  { kind: 'number', key: 'dualClip', label: 'Dual clip c', help: 'Bounds the loss of a negative-advantage token at ratio c (verl); 0 = off.', main: false },
  { kind: 'number', key: 'valueClip', label: 'Value clip', help: 'PPO value clipping range.', main: false },
  { kind: 'number', key: 'valueCoef', label: 'Value loss weight', help: 'PPO value loss coefficient.', main: false },
  {
    kind: 'choice',
    key: 'klEstimator',
    label: 'KL estimator',
    help: 'k1 or k3 (Schulman).',
    main: false,
    options: [
      ['k3', 'k3'],
      ['k1', 'k1'],
    ],
  },
  { kind: 'number', key: 'gamma', label: 'γ', help: 'GAE discount.', main: false },
  { kind: 'number', key: 'lambda', label: 'λ', help: 'GAE λ.', main: false },
  { kind: 'number', key: 'gradClip', label: 'Grad clip', help: 'Global norm clip.', main: false },
  { kind: 'number', key: 'maxOutputChars', label: 'Tool output chars', help: 'Sandbox output is cut to this.', main: false },
  { kind: 'number', key: 'testEvery', label: 'Test every', help: 'Held-out evaluation every N steps.', main: false },
  { kind: 'number', key: 'samplesPerStep', label: 'Samples kept', help: 'Rollouts per step sent to the inspector.', main: false },
  { kind: 'number', key: 'sandboxTimeoutMs', label: 'Sandbox timeout (ms)', help: 'Per code call.', main: false },
];

/** The kinds of problem with the lab's plain names. */
export const KIND_LABELS: [keyof ExperimentConfig['kindMix'], string][] = [
  ['arithmetic', 'arithmetic'],
  ['compose', 'compose'],
  ['search', 'search'],
  ['errorProne', 'error-prone'],
];

export const TIER_KEYS = ['easy', 'medium', 'hard'] as const satisfies readonly (keyof ExperimentConfig['tierMix'])[];
