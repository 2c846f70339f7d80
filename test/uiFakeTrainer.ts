/**
 * A stand-in for the trainer worker: the TrainerWorkerApi's behaviour (events per step, pause
 * between steps, checkpoints that remember their step) with made-up figures and no tfjs. As the
 * real one (trainerWorker/labSession.ts), pause resolves once the training under way has stopped,
 * and a checkpoint is answered a while after it is asked for (the worker serialises the weights).
 */
import type { ModelAnswer } from '../src/core/rollout/answerQuestion';
import type { ExperimentConfig } from '../src/core/experiment';
import type { EvalReport } from '../src/core/eval/evalReport';
import type { AskRequest } from '../src/trainerWorker/askRequest';
import type { PassAtOneRequest } from '../src/trainerWorker/evaluationRequest';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import type { BackendChoice, LabEvent, RunFrom, TrainerWorkerApi } from '../src/trainerWorker/protocol';
import type { ConnectTrainer } from '../src/ui/controller/trainerConnection';
import { metricsAt, sampleAt } from './uiFixtures';

export interface FakeCall {
  method: string;
  args: unknown[];
}

export class FakeTrainer implements TrainerWorkerApi {
  calls: FakeCall[] = [];
  backend: BackendChoice | null = null;
  private emit: (event: LabEvent) => void = () => {};
  private runId: string | null = null;
  private config: ExperimentConfig | null = null;
  private stepNumber = 0;
  private paused = false;
  /** The train() call under way, which pause waits for (LabSession.pause awaits the job). */
  private training: Promise<void> | null = null;
  private evaluationCancelled = false;

  /**
   * With `eventsTrailReplies`, events arrive 3 ms late, so a command's reply can overtake the events
   * sent before it, as in the real worker: comlink delivers the event callback on a port of its own
   * (trainerWorker/trainerApi.ts; ui/controller/settledStatus.ts waits for it). A step then takes
   * 10 ms, longer than that lag, as a real step (about 150 ms) is longer than a message's hop.
   */
  constructor(private readonly eventsTrailReplies = false) {}

  async init(options: { backend: BackendChoice; baseModelUrl: string }, onEvent: (event: LabEvent) => void) {
    this.calls.push({ method: 'init', args: [options] });
    this.backend = options.backend;
    this.emit = this.eventsTrailReplies ? (event) => void setTimeout(() => onEvent(event), 3) : onEvent;
    const name = options.backend === 'auto' ? 'wasm' : options.backend;
    return { name, adapter: null, probeMs: { [name]: 1 }, reason: 'fake' };
  }

  /** Notices the next startRun resolves to (a weights-only checkpoint's, say). */
  startNotices: string[] = [];

  async startRun(runId: string, config: ExperimentConfig, from?: RunFrom): Promise<string[]> {
    this.calls.push({ method: 'startRun', args: [runId, config, from] });
    this.runId = runId;
    this.config = config;
    this.stepNumber = from?.step ?? 0;
    if (!from) this.emit({ type: 'step', runId, metrics: metricsAt(0, { testAccuracy: 0.1 }), samples: [] });
    this.emit({ type: 'status', runId, status: 'idle', step: this.stepNumber });
    return this.startNotices;
  }

  async train() {
    this.calls.push({ method: 'train', args: [] });
    this.paused = false;
    this.status('training');
    this.training = (async () => {
      while (!this.paused && this.stepNumber < this.config!.steps) {
        await tick(this.eventsTrailReplies ? 10 : 1);
        this.oneStep();
      }
      this.status(this.stepNumber >= this.config!.steps ? 'finished' : 'paused');
    })();
    await this.training;
    this.training = null;
  }

  async pause() {
    this.calls.push({ method: 'pause', args: [] });
    this.paused = true;
    await this.training;
  }

  async step() {
    this.calls.push({ method: 'step', args: [] });
    this.oneStep();
    this.status(this.stepNumber >= this.config!.steps ? 'finished' : 'paused');
  }

  /** A step without stages: the fake has no trainer to show. */
  async slowMotionStep() {
    this.calls.push({ method: 'slowMotionStep', args: [] });
    this.oneStep();
    this.status(this.stepNumber >= this.config!.steps ? 'finished' : 'paused');
  }

  async reset() {
    this.calls.push({ method: 'reset', args: [] });
    this.stepNumber = 0;
    this.emit({ type: 'step', runId: this.runId!, metrics: metricsAt(0, { testAccuracy: 0.1 }), samples: [] });
    this.status('idle');
  }

  async saveCheckpoint(): Promise<CheckpointBlob> {
    this.calls.push({ method: 'saveCheckpoint', args: [] });
    const step = this.stepNumber;
    await tick();
    return { manifest: { format: 'tir-lab-checkpoint', meta: { step, runId: this.runId } }, weights: Uint8Array.from([step]) };
  }

  async evaluate(nmaxValues: number[]) {
    this.calls.push({ method: 'evaluate', args: [nmaxValues] });
    const trainNmax = this.config!.nmax;
    return { runId: this.runId!, accuracyByNmax: Object.fromEntries(nmaxValues.map((n) => [n, (trainNmax * 10 + n) / 100])) };
  }

  async pretrain(options: { steps: number; seed: number; toolPrior: number }): Promise<CheckpointBlob> {
    this.calls.push({ method: 'pretrain', args: [options] });
    for (let step = 1; step <= options.steps; step++) {
      this.emit({ type: 'pretrainStep', step, loss: 4 / step });
      this.emit({ type: 'progress', task: 'pretrain', done: step, total: options.steps, etaSeconds: options.steps - step });
    }
    return { manifest: { format: 'tir-lab-checkpoint', meta: { kind: 'base' } }, weights: Uint8Array.from([9]) };
  }

  /** One progress event per Nmax; pass@1 = (10 k + Nmax) / 100 and the checkpoint's first byte as its selfCorrections. */
  async evaluatePassAtOne(request: PassAtOneRequest): Promise<EvalReport | null> {
    this.calls.push({ method: 'evaluatePassAtOne', args: [request] });
    this.evaluationCancelled = false;
    const blocks: EvalReport['blocks'] = [];
    for (const [i, nmax] of request.nmaxList.entries()) {
      await tick();
      if (this.evaluationCancelled) return null;
      const share = (10 * request.k + nmax) / 100;
      blocks.push({
        nmax, samples: 64 * request.k, 'pass@1': share, standardError: 0.01, byTier: { easy: share, medium: share, hard: share },
        byKind: { arithmetic: share, compose: null, search: null, errorProne: null, multiStep: null, chain: null }, byFamily: { oneDigitSum: share }, byDepth: [share, null, null, null, null], perProblem: [share],
        selfCorrectedResponses: 0, selfCorrectionShare: 0,
        codeRatio: 0, codeLines: 0, correctCodeCount: 0, codePassRate: null, invocationPosition: null,
        callsPerResponse: 0, callsHistogram: [64 * request.k], singleCallShare: null,
        singleCallShareByDepth: [null, null, null, null, null], callsPerResponseByDepth: [0, null, null, null, null], selfCorrections: request.checkpoint.weights[0],
      });
      this.emit({ type: 'progress', task: 'evaluate', done: i + 1, total: request.nmaxList.length, etaSeconds: null });
    }
    const { nmaxList: _nmaxList, checkpoint: _checkpoint, label, ...settings } = request;
    return { checkpoint: label, format: 'zerotir', problems: 64, ...settings, maxResponseTokens: 96, maxOutputChars: 64, wallSeconds: 0.01, problemDepths: [1], blocks };
  }

  async cancelEvaluation() {
    this.calls.push({ method: 'cancelEvaluation', args: [] });
    this.evaluationCancelled = true;
  }

  /** Writes "Answer: 12" in two snapshots, then the answer; the model asked is in the call's args. */
  async askModel(request: AskRequest, onAnswer: (answer: ModelAnswer) => void): Promise<ModelAnswer> {
    this.calls.push({ method: 'askModel', args: [request] });
    const answer = (text: string, done: boolean): ModelAnswer => ({
      prompt: `Q: ${request.question}\nA:`,
      segments: [{ kind: 'policy', text }],
      calls: [],
      pythonRunning: false,
      done,
      endedWithEos: done,
    });
    onAnswer(answer(' Answer:', false));
    onAnswer(answer(' Answer: 12', true));
    return answer(' Answer: 12', true);
  }

  methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  private oneStep() {
    this.stepNumber++;
    const s = this.stepNumber;
    this.emit({
      type: 'step',
      runId: this.runId!,
      metrics: metricsAt(s, { accuracy: s / 100, codeCallFrequency: 0.5, seconds: { generate: 1, execute: 0.1, update: 0.5 } }),
      samples: [sampleAt(s, 1), sampleAt(s, 0, false)],
    });
  }

  private status(status: 'idle' | 'training' | 'paused' | 'finished') {
    this.emit({ type: 'status', runId: this.runId, status, step: this.stepNumber });
  }
}

/** A ConnectTrainer that hands out fresh fakes and remembers them and what each was for (a backend switch makes a new one). */
export function fakeConnector(options: { eventsTrailReplies?: boolean } = {}): { connect: ConnectTrainer; trainers: FakeTrainer[]; closed: number[]; purposes: string[] } {
  const trainers: FakeTrainer[] = [];
  const closed: number[] = [];
  const purposes: string[] = [];
  const connect: ConnectTrainer = (_onCrash, purpose = 'lab') => {
    const trainer = new FakeTrainer(options.eventsTrailReplies);
    const index = trainers.push(trainer) - 1;
    purposes.push(purpose);
    return { api: trainer, close: () => closed.push(index) };
  };
  return { connect, trainers, closed, purposes };
}

/** A timer's wait, as a worker's answer takes. */
function tick(ms = 1): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
