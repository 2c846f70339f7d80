/**
 * The words the lab's screen uses that a high-school class may not know, each with a plain
 * explanation: the glossary dialog lists them, and a term on screen carries its explanation as a
 * title (Term.tsx). A term is a key, so a term on screen without an entry does not compile.
 */
export const GLOSSARY = {
  TIR: 'Tool-integrated reasoning: solving a problem by thinking in text and, when it helps, running a tool (here Python) and using its output.',
  'outcome reward':
    'A score given only for the final result (1 if the final number is right, else 0), never for how the answer got there: nobody tells the model to use code.',
  token: 'The small pieces a language model reads and writes. This model writes one character at a time, so here a token is one character.',
  'policy tokens': 'The characters the model wrote itself. Only these are learnt from.',
  'environment tokens': 'The characters pasted into an answer by the sandbox (the Python output, in amber). The model did not write them, so it is not trained on them.',
  sandbox: 'A locked box in your browser where the model’s Python runs: it cannot reach files, the network or the page.',
  fences: 'The ``` marks around a block of code: ```python opens a block, ``` closes it. When the model closes a block, the code runs.',
  Nmax: 'How many times one answer may run Python. 0 means no tool at all.',
  step: 'One round of practice: the model answers a batch of questions, each answer is scored, and the model is changed a little towards the answers that did better.',
  group: 'All the answers the model wrote to the same question in one step. Reinforce++ and GRPO compare each answer with the others of its group; PPO with the critic’s guess.',
  'group filter': 'Groups where every answer was right, or every answer was wrong, teach nothing (no answer did better than another), so they are dropped.',
  advantage: 'How much better an answer did than expected. Positive: the model is made more likely to write answers like it; negative: less likely.',
  baseline: 'What an answer is expected to score, to compare its reward with: the mean of its group, or (PPO) the critic’s guess.',
  critic: 'PPO only: a second output of the model that learns to guess, at each character, the reward the answer will get. Its guess is the baseline.',
  'gradient norm': 'How big the change to the model’s numbers was in one step. A sudden jump means the step pushed hard.',
  KL: 'How far the model has drifted from the model it started as (0 = not at all). A KL weight above 0 holds it near the start; the presets use 0, and then it is not measured.',
  'k1 / k3': 'Two ways to estimate the drift (KL): k1 is the plain estimate and can dip below 0 by chance; k3 never goes below 0 and jumps around less.',
  'learning rate': 'How big a change each step makes to the model: too small and it learns nothing, too big and it forgets what it knew.',
  temperature: 'How adventurous the model is when it writes: higher tries more varied answers.',
  PPO: 'Proximal Policy Optimisation: a reinforcement-learning method that compares each answer with the critic’s guess and limits how far one step may change the model.',
  'Reinforce++': 'A reinforcement-learning method without a critic: each answer is compared with the other answers to its question.',
  GRPO: 'Group Relative Policy Optimisation: like Reinforce++, each answer is compared with its group, and scaled by how much the group’s rewards differ.',
  'held-out test': 'A fixed set of questions the model never practises on, asked every few steps: the orange line. It shows whether the model learnt or only got lucky.',
  seed: 'The starting point of the dice the model rolls. The same seed and settings give the same run, number for number.',
  'base model': 'The model before reinforcement learning: trained only to continue maths text and notebook snippets. It has never been rewarded for anything.',
  'cold start': 'ReTool’s first stage: before reinforcement learning, the base model is shown worked answers that use code, so it starts out already writing some code.',
  ZeroTIR: 'A research paper (and its recipe): reinforcement learning straight from the base model, with no examples of tool use, using ```python blocks. The lab repeats it in miniature.',
  ReTool: 'A research paper (and its recipe): first a cold start on worked answers that use code, then reinforcement learning, using <code> tags.',
  'scaling law': 'A rule that a quantity grows steadily with another: here accuracy, code use and answer length all rising together with training steps.',
  ablation: 'An experiment that removes or changes one thing to see what it was for: here, training the same run with different Nmax (0 = no tool).',
  checkpoint: 'A saved copy of the model and its training state at one step, so a run can continue later or be copied to another browser.',
  'saved @N': 'The run’s checkpoint is at step N: closing the page loses nothing up to that step.',
  Fork: 'Start a new run from where the shown run is now, with the knobs as they are set: the old run stays as it was.',
  CSV: 'A plain table file (comma-separated values) that a spreadsheet opens: one row per step, one column per curve.',
  backend: 'What does the model’s sums in your browser: the graphics card (WebGPU or WebGL) or the processor (WASM or CPU). It changes the speed, not the results.',
  WebGPU: 'Runs the model’s sums on the graphics card, the newest way. Usually the fastest for big models.',
  WebGL: 'Runs the model’s sums on the graphics card, the older way.',
  WASM: 'WebAssembly: runs the model’s sums on the processor, compiled for speed. For a model this small it is often the fastest.',
  CPU: 'Runs the model’s sums in plain JavaScript on the processor: slow, but works everywhere.',
  probe: 'At start the lab times a short test on each backend it can use and picks the fastest: the times are the probe.',
  'SIMD build': 'A version of WASM that does several sums in one instruction: faster on processors that support it.',
  'tok/s': 'Tokens per second: how many characters the model writes per second while answering.',
  rollout: 'One answer the model wrote, from the question to its final line, with the Python output pasted in. The Rollout inspector shows a step’s rollouts.',
  'pass@1': 'The share of questions answered right at the first try: each question is answered k times, and the share of right answers is averaged over the questions.',
  'top-p': 'When the model picks each next character, it picks only among the likeliest ones that together hold this share of the chance (0.7: the top 70%).',
  'self-correction': 'An answer whose Python failed, then ran fixed code, and whose right final number comes from the fixed run’s output.',
  depth: 'How many steps a question takes, one Python run each when solved step by step: a plain sum has depth 1, a two-part question 2, a chain of five divisions 5.',
  'standard error': 'How much a measured number would move if measured again with other draws of chance (± s.e.). A difference of over two standard errors is unlikely to be luck.',
  'gen / exec / upd': 'Where the last step’s time went: gen = writing the answers, exec = running their Python, upd = changing the model (seconds).',
} as const satisfies Record<string, string>;

export type GlossaryTerm = keyof typeof GLOSSARY;

/** The glossary in reading order: alphabetical, capitals not counted. */
export function glossaryEntries(): [GlossaryTerm, string][] {
  return (Object.entries(GLOSSARY) as [GlossaryTerm, string][]).sort(([a], [b]) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
}
