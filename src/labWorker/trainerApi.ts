/**
 * The TrainerWorkerApi over a LabSession, with the environment passed in: how to pick a backend,
 * fetch a checkpoint and make a sandbox. The worker passes the browser's; tests pass Node's.
 * Every failure becomes an 'error' event and a rejected call, never a dead worker.
 */
import { deserializeCheckpoint } from '../core/run/checkpoint';
import type { PythonSandbox } from '../core/sandbox/protocol';
import { LabSession, messageOf } from './labSession';
import type { PretrainShape } from './pretrainJob';
import type { CheckpointBlob } from './checkpointBlob';
import type { BackendChoice, BackendInfo, LabEvent, TrainerWorkerApi } from './protocol';

export interface TrainerEnvironment {
  chooseBackend(choice: BackendChoice): Promise<BackendInfo>;
  loadCheckpoint(url: string): Promise<CheckpointBlob>;
  /** `emit` lets a sandbox that starts in the background report a failure. */
  createSandbox(emit: (event: LabEvent) => void): Promise<PythonSandbox>;
  yieldToEvents?: () => Promise<void>;
  pretrainShape?: PretrainShape;
}

const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'];

export function createTrainerApi(environment: TrainerEnvironment): TrainerWorkerApi {
  let session: LabSession | null = null;
  let sandbox: PythonSandbox | null = null;
  let emit: (event: LabEvent) => void = () => undefined;

  /** Runs a command; a failure is reported as an 'error' event and rethrown to the caller. */
  async function guarded<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      emit({ type: 'error', message: messageOf(error) });
      throw error;
    }
  }

  function requireSession(): LabSession {
    if (!session) throw new Error('the trainer worker is not initialised: call init first');
    return session;
  }

  async function closeSession(): Promise<void> {
    await session?.dispose();
    await sandbox?.close();
    session = null;
    sandbox = null;
  }

  return {
    init(options, onEvent) {
      // A proxied callback whose page has gone away rejects; the worker must not care.
      emit = (event) => void Promise.resolve(onEvent(event)).catch(() => undefined);
      return guarded(async () => {
        const backend = options?.backend;
        const baseModelUrl = options?.baseModelUrl;
        if (!BACKEND_CHOICES.includes(backend)) throw new Error(`backend must be one of ${BACKEND_CHOICES.join(', ')}, got ${JSON.stringify(backend)}`);
        if (typeof baseModelUrl !== 'string' || baseModelUrl === '') throw new Error('init needs the base model URL');
        await closeSession();
        const info = await environment.chooseBackend(backend);
        emit({ type: 'backend', info });
        const blob = await environment.loadCheckpoint(baseModelUrl);
        const { model, meta, fingerprint } = deserializeCheckpoint(blob.manifest, blob.weights);
        try {
          sandbox = await environment.createSandbox((event) => emit(event));
        } catch (error) {
          model.dispose();
          throw error;
        }
        session = new LabSession({
          base: model,
          baseMeta: meta,
          baseFingerprint: fingerprint,
          sandbox,
          emit: (event) => emit(event),
          yieldToEvents: environment.yieldToEvents,
          pretrainShape: environment.pretrainShape,
        });
        emit({ type: 'status', runId: null, status: 'idle', step: 0 });
        return info;
      });
    },
    startRun: (runId, config, from) => guarded(() => requireSession().startRun(runId, config, from)),
    train: () => guarded(() => requireSession().train()),
    pause: () => guarded(() => requireSession().pause()),
    step: () => guarded(() => requireSession().step()),
    slowMotionStep: (onStage) => guarded(() => requireSession().step(onStage)),
    reset: () => guarded(() => requireSession().reset()),
    saveCheckpoint: () => guarded(() => requireSession().saveCheckpoint()),
    evaluate: (nmaxValues) => guarded(() => requireSession().evaluate(nmaxValues)),
    pretrain: (options) => guarded(() => requireSession().pretrain(options)),
    evaluatePassAtOne: (request) => guarded(() => requireSession().evaluatePassAtOne(request)),
    cancelEvaluation: () => guarded(() => requireSession().cancelEvaluation()),
    // A proxied callback whose page has gone away rejects; the answer goes on regardless.
    askModel: (request, onAnswer) => guarded(() => requireSession().askModel(request, (answer) => void Promise.resolve(onAnswer(answer)).catch(() => undefined))),
  };
}
