/**
 * The RL loop, one step as a story: sample prompts, roll out a group per prompt (the policy
 * writes, the sandbox runs its code), score each answer 0/1, drop groups outside the filter
 * band, assign credit, update the policy. The same class runs in the CLI, the lab's worker and
 * the tests; it owns no I/O beyond the sandbox it is given.
 */
import * as tf from '@tensorflow/tfjs-core';
import { Episode, episodeConfig } from '../rollout/episode';
import { sandboxRunOptions, type ExperimentConfig } from '../experiment';
import type { GPT } from '../model/gpt';
import { mean } from '../metrics/means';
import { accuracyByGroup, emptyStepMetrics, rolloutFigures, type StepMetrics } from '../metrics/stepMetrics';
import { Random } from '../random';
import type { PythonSandbox } from '../sandbox/protocol';
import { formatPrompt } from '../tasks/prompt';
import type { Problem } from '../tasks/problem';
import { answerReward } from '../tasks/reward';
import { testSet } from '../tasks/splits';
import { stepProblems } from '../tasks/stepProblems';
import { encode } from '../tokenizer';
import { assignCredit } from './creditAssignment';
import { evaluateProblems, type EvaluationResult } from '../eval/evaluate';
import type { GradientHelper } from './gradientHelpers';
import { groupsPassingFilter, keptRolloutIndices } from './groupFilter';
import { meanSampledKl } from './kl';
import { policyUpdate, responseLogProbs } from './policyUpdate';
import { generateRollouts } from '../rollout/rollout';
import { batchMemoryError, outOfMemoryMessage } from '../memoryEstimate';
import { readAdamState, restoreAdamState } from '../optim/adamState';
import { learningRateAt } from '../optim/learningRateSchedule';
import { setLearningRate } from '../optim/adamStep';
import { inspectorSampleIndices, rolloutSample, type RolloutSample } from '../rollout/rolloutSample';
import { StepStageView, type StepObserver, type StepStageListener, type StepStageName } from './stepStages';
import { trainingSequence } from './trainingBatch';
import type { TrainerProgress } from '../run/trainerState';
import { UpdateRollback } from '../optim/updateRollback';

export interface StepRecord {
  metrics: StepMetrics;
  samples: RolloutSample[];
}

/** Where a trainer starts other than a fresh run from `model`. */
export interface TrainerStart {
  /** The KL reference: the run's start model (default: `model` as given). The trainer keeps a copy. */
  reference?: GPT;
  /** Where a run stopped (saveState): its step, random streams and Adam state, to continue exactly. */
  progress?: TrainerProgress;
  /**
   * Without `progress`: the step `model`'s weights are at, a checkpoint's of weights only (saved
   * before checkpoints kept the run state); the next step is step + 1, with a fresh optimizer and
   * fresh random streams.
   */
  step?: number;
}

export class Trainer {
  /** Steps taken so far, counting those of the run this one continues. */
  private stepsDone: number;
  private readonly reference: GPT;
  private readonly optimizer: tf.AdamOptimizer;
  private problemRng: Random;
  private sampleRng: Random;
  private shuffleRng: Random;

  /** Trains `model` in place, from step 0 or from where a saved run stopped. */
  constructor(
    readonly model: GPT,
    readonly config: ExperimentConfig,
    private readonly sandbox: PythonSandbox,
    start: TrainerStart = {},
    /** Threads that share each minibatch's gradient with this one (gradientHelpers.ts): no figure depends on them. */
    private readonly gradientHelpers: readonly GradientHelper[] = [],
  ) {
    // configErrors judges the batch for the base model; a run may start from another shape.
    const tooLarge = batchMemoryError(config, model.config);
    if (tooLarge) throw new Error(tooLarge);
    this.reference = (start.reference ?? model).copy();
    this.optimizer = tf.train.adam(config.learningRate);
    const rng = new Random(config.seed);
    this.problemRng = rng.fork(1);
    this.sampleRng = rng.fork(2);
    this.shuffleRng = rng.fork(3);
    this.stepsDone = start.step ?? 0;
    const progress = start.progress;
    if (progress) {
      restoreAdamState(this.optimizer, model, progress.optimizer);
      this.stepsDone = progress.step;
      this.problemRng = Random.fromState(progress.random.problems);
      this.sampleRng = Random.fromState(progress.random.samples);
      this.shuffleRng = Random.fromState(progress.random.shuffle);
    }
  }

  /** The last step taken: 0 before the first. */
  get step(): number {
    return this.stepsDone;
  }

  /** Everything besides the weights that the next step depends on, read between steps. */
  async saveState(): Promise<TrainerProgress> {
    return {
      step: this.stepsDone,
      random: { problems: this.problemRng.saveState(), samples: this.sampleRng.saveState(), shuffle: this.shuffleRng.saveState() },
      optimizer: await readAdamState(this.optimizer),
    };
  }

  /** Greedy accuracy on the held-out test set at the run's Nmax (or another inference budget). */
  evaluateTest(nmax = this.config.nmax): Promise<EvaluationResult> {
    return evaluateProblems(this.model, testSet(), { episode: episodeConfig(this.config, nmax), sandbox: this.sandbox, runOptions: sandboxRunOptions(this.config) });
  }

  /** The step-0 record: the base model's held-out accuracy, before any update. */
  async initialRecord(): Promise<StepRecord> {
    const metrics = emptyStepMetrics(0);
    metrics.testAccuracy = (await this.evaluateTest()).accuracy;
    return { metrics, samples: [] };
  }

  /**
   * One step. With an observer (the lab's slow motion), each stage's data goes to it and the step
   * waits for it before the next stage; the time it waits is not counted in the step's seconds.
   * `shouldStop` is asked between the rollouts' token steps; true drops the step (RolloutStopped).
   * `onStage` hears which stage the step is in as it moves.
   * A step that fails or is stopped, before its update or during it, leaves the trainer exactly as
   * the last step left it (step count, random streams, weights and optimizer), so the run goes on,
   * or is saved, from there; one that runs out of memory says what to change.
   */
  async trainStep(observer?: StepObserver, shouldStop?: () => Promise<boolean>, onStage?: StepStageListener): Promise<StepRecord> {
    const before = { step: this.stepsDone, problems: this.problemRng.saveState(), samples: this.sampleRng.saveState(), shuffle: this.shuffleRng.saveState() };
    const update: { rollback: UpdateRollback | null } = { rollback: null };
    try {
      return await this.runStep(update, observer, shouldStop, onStage);
    } catch (error) {
      update.rollback?.restore();
      this.stepsDone = before.step;
      this.problemRng = Random.fromState(before.problems);
      this.sampleRng = Random.fromState(before.samples);
      this.shuffleRng = Random.fromState(before.shuffle);
      const outOfMemory = outOfMemoryMessage(error, this.config, before.step + 1);
      throw outOfMemory ? new Error(outOfMemory) : error;
    } finally {
      update.rollback?.dispose();
    }
  }

  private async runStep(
    update: { rollback: UpdateRollback | null },
    observer?: StepObserver,
    shouldStop?: () => Promise<boolean>,
    onStage?: StepStageListener,
  ): Promise<StepRecord> {
    const config = this.config;
    const step = ++this.stepsDone;
    const metrics = emptyStepMetrics(step);

    // 1. Prompts, each repeated groupSize times (a group is consecutive).
    const problems: Problem[] = stepProblems(this.problemRng, config, config.promptsPerStep, config.promptSampling).flatMap((problem) =>
      Array<Problem>(config.groupSize).fill(problem),
    );
    const prompts = problems.map((p) => formatPrompt(p));

    // 2. Rollouts with code execution, each allowed the run's Nmax.
    onStage?.('rollouts');
    const allowed = episodeConfig(this.config, this.config.nmax);
    const episodes = prompts.map((prompt) => new Episode(encode(prompt), allowed));
    const { rollouts, timing } = await generateRollouts(this.model, episodes, {
      temperature: config.temperature,
      rng: this.sampleRng,
      sandbox: this.sandbox,
      runOptions: sandboxRunOptions(this.config),
      shouldStop,
      onProgress: onStage && ((episodes) => onStage(episodes.some((e) => e.waitingForTool) ? 'python' : 'rollouts')),
    });

    // 3. Outcome reward only.
    onStage?.('rewards');
    const rewards = rollouts.map((r, i) => answerReward(r.episode.responseText(), r.episode.endedWithEos, problems[i]));
    Object.assign(metrics, rolloutFigures(rollouts, rewards, problems), accuracyByGroup(problems, rewards));
    const generatedTokens = rollouts.reduce((n, r) => n + r.episode.policyMask.reduce((a, b) => a + b, 0), 0);
    metrics.tokensPerSecond = generatedTokens / Math.max(timing.generateSeconds, 1e-9);

    // 4. ZeroTIR's group filter: keep groups that are neither all solved nor hopeless.
    const passing = groupsPassingFilter(rewards, config.groupSize, { low: config.filterLow, high: config.filterHigh });
    metrics.filterPassRate = mean(passing.map(Number));
    const kept = keptRolloutIndices(passing, config.groupSize);

    const view = observer && new StepStageView(step, config.algorithm, prompts, problems, rollouts, rewards, passing, config.maxOutputChars);
    let watchedMs = 0;
    const show = async (stage: StepStageName) => {
      if (!observer || !view) return;
      const start = performance.now();
      await observer(view.snapshot(stage, stage === 'update' ? metrics : null));
      watchedMs += performance.now() - start;
    };
    await show('rollouts');
    await show('python');
    await show('rewards');

    // 5-6. Credit assignment and the update.
    onStage?.('advantages');
    const updateStart = performance.now();
    const watchedBeforeUpdate = watchedMs;
    if (kept.length > 0) {
      const keptRollouts = kept.map((i) => rollouts[i]);
      const credit = assignCredit(keptRollouts, kept.map((i) => rewards[i]), config);
      view?.setCredit(kept, credit);
      await show('advantages');
      const sequences = keptRollouts.map((r, j) => trainingSequence(r, credit.advantages[j], credit.returns[j]));
      // With no KL term in the loss the reference model's forward pass would only feed the logged
      // figure, a quarter of the update's work: skipped, as verl skips its reference worker then.
      if (config.klCoef > 0) {
        const refLogProbs = await responseLogProbs(this.reference, sequences, config.temperature);
        sequences.forEach((s, j) => (s.refLogProbs = refLogProbs[j]));
        metrics.kl = meanSampledKl(sequences);
      }
      setLearningRate(this.optimizer, learningRateAt(config, step));
      // From here the weights and Adam move: on a failure trainStep puts them back as they are now.
      onStage?.('update');
      update.rollback = new UpdateRollback(this.model, this.optimizer);
      const figures = await policyUpdate(this.model, this.optimizer, sequences, config, this.shuffleRng, this.gradientHelpers);
      metrics.clipFraction = figures.clipFraction;
      metrics.approxKl = figures.approxKl;
      metrics.valueLoss = figures.valueLoss;
      metrics.entropy = figures.entropy;
      metrics.gradNorm = figures.gradNorm;
    } else await show('advantages');
    metrics.seconds = {
      generate: timing.generateSeconds,
      execute: timing.executeSeconds,
      update: (performance.now() - updateStart - (watchedMs - watchedBeforeUpdate)) / 1000,
    };

    if (step % config.testEvery === 0) metrics.testAccuracy = (await this.evaluateTest()).accuracy;
    await show('update');

    const samples = inspectorSampleIndices(rollouts.length, config.groupSize, config.samplesPerStep).map((i) =>
      rolloutSample(step, prompts[i], problems[i], rollouts[i], rewards[i]),
    );
    return { metrics, samples };
  }

  dispose(): void {
    this.reference.dispose();
    this.optimizer.dispose();
  }
}
