/**
 * Every lab knob mapped to verl's config keys (Hydra overrides of verl.trainer.main_ppo, v0.6.1) and
 * OpenRLHF's flags (openrlhf.cli.train_ppo_ray, v0.11.0): the arguments run.sh passes, and the table
 * of docs/scale-out.md. `fit` says how exactly the engine reproduces the knob.
 */
import type { ExperimentConfig } from '../experiment';
import { ALGORITHMS } from '../rl/algorithms';

export type Fit = 'exact' | 'approximate' | 'none';

export interface KnobMapping {
  knob: keyof ExperimentConfig;
  verl: (c: ExperimentConfig) => string[];
  openrlhf: (c: ExperimentConfig) => string[];
  fit: { verl: Fit; openrlhf: Fit };
  note: string;
}

const VERL_ESTIMATOR = { ppo: 'gae', 'reinforce++': 'reinforce_plus_plus_baseline', grpo: 'grpo' } as const;
const OPENRLHF_ESTIMATOR = { ppo: 'gae', 'reinforce++': 'reinforce_baseline', grpo: 'group_norm' } as const;
/** verl's names for the KL estimators: k1 is "kl", k3 is "low_var_kl" (k3 clamped to [-10, 10]). */
const VERL_KL_TYPE = { k1: 'kl', k3: 'low_var_kl' } as const;
/** Room a prompt takes in the engine's tokens: the instruction plus the question. */
export const PROMPT_TOKEN_BUDGET = 256;

const ACTOR = 'actor_rollout_ref.actor';
const ROLLOUT = 'actor_rollout_ref.rollout';
const TURNS = `${ROLLOUT}.multi_turn`;
export const usesCritic = (c: Pick<ExperimentConfig, 'algorithm'>) => ALGORITHMS[c.algorithm].usesCritic;
type MiniBatchKnobs = Pick<ExperimentConfig, 'minibatchSize' | 'groupSize' | 'promptsPerStep'>;
/**
 * The lab's mini-batch in rollouts: a minibatchSize past a step's rollouts learns from them all at
 * once (policyUpdate.ts), where verl would refuse to start (train_batch_size < ppo_mini_batch_size).
 */
export const labMiniBatchRollouts = (c: MiniBatchKnobs) => Math.min(c.minibatchSize, c.promptsPerStep * c.groupSize);
/** verl counts its PPO mini-batch in prompts, each with rollout.n responses. */
export const verlMiniBatchPrompts = (c: MiniBatchKnobs) => Math.max(1, Math.round(labMiniBatchRollouts(c) / c.groupSize));
const none = () => [];

export const KNOB_MAPPINGS: readonly KnobMapping[] = [
  {
    knob: 'algorithm',
    verl: (c) => [`algorithm.adv_estimator=${VERL_ESTIMATOR[c.algorithm]}`],
    openrlhf: (c) => [`--algo.advantage.estimator ${OPENRLHF_ESTIMATOR[c.algorithm]}`],
    fit: { verl: 'approximate', openrlhf: 'approximate' },
    note: 'ppo: GAE with a separate critic model (the lab has a value head on the policy). reinforce++: group-mean baseline then batch whitening. grpo: group normalisation; both engines use the sample std where the lab uses the population std.',
  },
  { knob: 'gamma', verl: (c) => [`algorithm.gamma=${c.gamma}`], openrlhf: (c) => [`--algo.advantage.gamma ${c.gamma}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: 'GAE over policy tokens only in both (tool tokens masked).' },
  { knob: 'lambda', verl: (c) => [`algorithm.lam=${c.lambda}`], openrlhf: (c) => [`--algo.advantage.lambd ${c.lambda}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: '' },
  {
    knob: 'clipEps',
    verl: (c) => [`${ACTOR}.clip_ratio=${c.clipEps}`],
    openrlhf: (c) => [`--actor.eps_clip ${c.clipEps}`],
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: '',
  },
  {
    knob: 'dualClip',
    verl: (c) => (c.dualClip > 0 ? [`${ACTOR}.clip_ratio_c=${c.dualClip}`] : []),
    openrlhf: (c) => (c.dualClip > 0 ? [`--actor.dual_clip ${c.dualClip}`] : []),
    fit: { verl: 'approximate', openrlhf: 'exact' },
    note: 'verl always applies its dual clip (clip_ratio_c above 1, default 3): the lab\'s 0 (off) has no verl value. OpenRLHF\'s --actor.dual_clip is the same bound on negative-advantage tokens, off when not passed.',
  },
  {
    knob: 'valueClip',
    verl: (c) => (usesCritic(c) ? [`critic.cliprange_value=${c.valueClip}`] : []),
    openrlhf: (c) => (usesCritic(c) ? [`--critic.value_clip ${c.valueClip}`] : []),
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: 'PPO only.',
  },
  {
    knob: 'valueCoef',
    verl: none,
    openrlhf: none,
    fit: { verl: 'none', openrlhf: 'none' },
    note: 'The critic is its own model with its own optimiser in both engines, so there is no weight between the two losses.',
  },
  {
    knob: 'klCoef',
    verl: (c) => [`${ACTOR}.use_kl_loss=${c.klCoef > 0 ? 'True' : 'False'}`, `${ACTOR}.kl_loss_coef=${c.klCoef}`, 'algorithm.use_kl_in_reward=False'],
    openrlhf: (c) => (c.klCoef > 0 ? ['--algo.kl.use_loss', `--algo.kl.init_coef ${c.klCoef}`] : ['--algo.kl.init_coef 0']),
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: 'A KL loss to the frozen start model, as in the lab; 0 turns it off.',
  },
  {
    knob: 'klEstimator',
    verl: (c) => [`${ACTOR}.kl_loss_type=${VERL_KL_TYPE[c.klEstimator]}`],
    openrlhf: (c) => [`--algo.kl.estimator ${c.klEstimator}`],
    fit: { verl: 'approximate', openrlhf: 'exact' },
    note: "The lab clamps each token's estimate to [-10, 10] (and k3's exponent to [-20, 20]). verl's low_var_kl (k3) clamps the same; its kl (k1) is not clamped. OpenRLHF clamps every estimator to [-10, 10].",
  },
  { knob: 'groupSize', verl: (c) => [`${ROLLOUT}.n=${c.groupSize}`], openrlhf: (c) => [`--rollout.n_samples_per_prompt ${c.groupSize}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: '' },
  { knob: 'promptsPerStep', verl: (c) => [`data.train_batch_size=${c.promptsPerStep}`], openrlhf: (c) => [`--rollout.batch_size ${c.promptsPerStep}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: 'Prompts per step.' },
  {
    knob: 'minibatchSize',
    verl: (c) => [`${ACTOR}.ppo_mini_batch_size=${verlMiniBatchPrompts(c)}`],
    openrlhf: (c) => [`--train.batch_size ${labMiniBatchRollouts(c)}`],
    fit: { verl: 'approximate', openrlhf: 'exact' },
    note: "verl counts its mini-batch in prompts (each with n responses): minibatchSize / groupSize, rounded. Above a step's rollouts it is a step's, as the lab learns from them all at once.",
  },
  { knob: 'epochs', verl: (c) => [`${ACTOR}.ppo_epochs=${c.epochs}`], openrlhf: (c) => [`--train.max_epochs ${c.epochs}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: 'Passes over each step\'s rollouts.' },
  {
    knob: 'learningRate',
    verl: (c) => [`${ACTOR}.optim.lr=${c.learningRate}`, ...(usesCritic(c) ? [`critic.optim.lr=${c.learningRate}`] : [])],
    openrlhf: (c) => [
      `--actor.adam.lr ${c.learningRate}`,
      '--actor.lr_scheduler constant',
      ...(usesCritic(c) ? [`--critic.adam.lr ${c.learningRate}`, '--critic.lr_scheduler constant'] : []),
    ],
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: "Adam at the lab's initial rate, held constant (OpenRLHF's default schedule would decay it). The presets' rates suit a 160k-parameter model: pass --learning-rate 1e-6 for a 0.5B one.",
  },
  {
    knob: 'learningRateDecaySteps',
    verl: none,
    openrlhf: none,
    fit: { verl: 'none', openrlhf: 'none' },
    note: "Neither engine offers inverse-time decay: the export runs at the initial rate throughout, so the classroom preset's decaying rate is not reproduced. At 0 (constant: the quick and ablation presets) the learningRate row is the whole schedule.",
  },
  { knob: 'gradClip', verl: (c) => [`${ACTOR}.grad_clip=${c.gradClip}`], openrlhf: (c) => [`--actor.max_norm ${c.gradClip}`], fit: { verl: 'exact', openrlhf: 'exact' }, note: 'Global gradient norm.' },
  { knob: 'temperature', verl: (c) => [`${ROLLOUT}.temperature=${c.temperature}`, `${ROLLOUT}.top_p=1`], openrlhf: (c) => [`--rollout.temperature ${c.temperature}`, '--rollout.top_p 1'], fit: { verl: 'exact', openrlhf: 'exact' }, note: 'No nucleus cut in training, as in the lab.' },
  {
    knob: 'maxResponseTokens',
    verl: (c) => [`data.max_response_length=${c.maxResponseTokens}`, `data.max_prompt_length=${PROMPT_TOKEN_BUDGET}`],
    openrlhf: (c) => [`--data.max_len ${PROMPT_TOKEN_BUDGET + c.maxResponseTokens}`],
    fit: { verl: 'approximate', openrlhf: 'approximate' },
    note: "The same number, but of the engine tokenizer's tokens (a few characters each) where the lab counts characters; tool output counts in both. OpenRLHF caps prompt plus response together, so the response also gets what the prompt leaves of its 256.",
  },
  {
    knob: 'maxOutputChars',
    verl: none,
    openrlhf: none,
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: "Cut by the exported loop with the lab's `...[output truncated]` line (tool_config.yaml, tir_config.json).",
  },
  {
    knob: 'nmax',
    verl: (c) => [`${TURNS}.enable=True`, `${TURNS}.max_user_turns=${c.nmax}`, `${TURNS}.max_assistant_turns=${c.nmax + 1}`, `${TURNS}.max_parallel_calls=1`],
    openrlhf: none,
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: "Executed calls per response. verl: the exported loop reads max_user_turns (0: no tool); the other keys say the same to verl's own tool loop. OpenRLHF: tir_config.json.",
  },
  { knob: 'format', verl: none, openrlhf: none, fit: { verl: 'exact', openrlhf: 'exact' }, note: 'Fences or ReTool tags: tool_config.yaml (verl), tir_config.json (OpenRLHF).' },
  {
    knob: 'filterLow',
    verl: none,
    openrlhf: (c) => ['--algo.dynamic_filtering_enable', `--algo.dynamic_filtering_range ${c.filterLow} ${c.filterHigh}`],
    fit: { verl: 'none', openrlhf: 'approximate' },
    note: 'OpenRLHF keeps groups whose mean score lies strictly inside the range (the lab keeps the edges, so a band of 0.1-0.9 keeps 1/8 in both but not 0.1 exactly). verl 0.6.1\'s PPO trainer has no group filter (its DAPO recipe drops only all-equal groups).',
  },
  { knob: 'filterHigh', verl: none, openrlhf: none, fit: { verl: 'none', openrlhf: 'approximate' }, note: 'With filterLow above.' },
  { knob: 'seed', verl: (c) => [`data.seed=${c.seed}`], openrlhf: (c) => [`--train.seed ${c.seed}`], fit: { verl: 'approximate', openrlhf: 'approximate' }, note: 'Seeds the engine; the exported problems are drawn with it too. GPU kernels and vLLM sampling are not bit-reproducible.' },
  {
    knob: 'steps',
    verl: (c) => [`trainer.total_training_steps=${c.steps}`],
    openrlhf: () => ['--train.num_episodes 1'],
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: 'OpenRLHF: one pass over the exported train set, which holds steps x promptsPerStep problems unless --train-size says otherwise.',
  },
  {
    knob: 'testEvery',
    verl: (c) => [`trainer.test_freq=${c.testEvery}`, `${ROLLOUT}.val_kwargs.temperature=0`, `${ROLLOUT}.val_kwargs.n=1`],
    openrlhf: (c) => [`--eval.steps ${c.testEvery}`, '--eval.temperature 0', '--eval.n_samples_per_prompt 1'],
    fit: { verl: 'exact', openrlhf: 'exact' },
    note: 'The held-out set decoded greedily (temperature 0), one response per question, as in the lab.',
  },
  { knob: 'sandboxTimeoutMs', verl: none, openrlhf: none, fit: { verl: 'exact', openrlhf: 'exact' }, note: 'The exported tool\'s run timeout (tool_config.yaml, tir_config.json).' },
  { knob: 'tierMix', verl: none, openrlhf: none, fit: { verl: 'exact', openrlhf: 'exact' }, note: 'The train problems are drawn with it.' },
  { knob: 'kindMix', verl: none, openrlhf: none, fit: { verl: 'exact', openrlhf: 'exact' }, note: 'The train problems are drawn with it (docs/tasks.md).' },
  {
    knob: 'promptSampling',
    verl: none,
    openrlhf: none,
    fit: { verl: 'none', openrlhf: 'none' },
    note: 'The exported train set is drawn one problem at a time, and both engines shuffle it into batches: a stratified run\'s batches are not reproduced, only its mix.',
  },
  { knob: 'samplesPerStep', verl: none, openrlhf: none, fit: { verl: 'none', openrlhf: 'none' }, note: 'The lab\'s rollout inspector only.' },
];

export function verlKnobArgs(config: ExperimentConfig): string[] {
  return KNOB_MAPPINGS.flatMap((m) => m.verl(config));
}

export function openrlhfKnobArgs(config: ExperimentConfig): string[] {
  return KNOB_MAPPINGS.flatMap((m) => m.openrlhf(config));
}
