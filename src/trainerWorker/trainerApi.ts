/**
 * The TrainerWorkerApi over a LabSession, with the environment passed in: how to pick a backend,
 * fetch a checkpoint, make a sandbox and start the update's gradient helpers. The worker passes the
 * browser's; tests pass Node's.
 * init makes the session; every other command goes to the session's method of the same name
 * (sessionCommands), so a new command needs nothing here. Every failure becomes an 'error' event
 * and a rejected call, never a dead worker.
 */
import { deserializeCheckpoint } from '../core/run/checkpoint';
import type { PythonSandbox } from '../core/sandbox/protocol';
import { LabSession, messageOf } from './labSession';
import type { PretrainShape } from './pretrainJob';
import type { CheckpointBlob } from '../core/run/checkpointBlob';
import type { GradientHelperSet } from '../core/rl/gradientHelpers';
import { TRAINER_COMMANDS, type BackendChoice, type BackendInfo, type BackendName, type LabEvent, type TrainerCommands, type TrainerWorkerApi } from './protocol';

export interface TrainerEnvironment {
  chooseBackend(choice: BackendChoice): Promise<BackendInfo>;
  loadCheckpoint(url: string): Promise<CheckpointBlob>;
  /** `emit` lets a sandbox that starts in the background report a failure. */
  createSandbox(emit: (event: LabEvent) => void): Promise<PythonSandbox>;
  /** Threads that share each update on the chosen backend (core/rl/gradientHelpers.ts); none without. */
  startGradientHelpers?(backend: BackendName): Promise<GradientHelperSet>;
  yieldToEvents?: () => Promise<void>;
  pretrainShape?: PretrainShape;
}

const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'];

export function createTrainerApi(environment: TrainerEnvironment): TrainerWorkerApi {
  let session: LabSession | null = null;
  let sandbox: PythonSandbox | null = null;
  let helpers: GradientHelperSet | null = null;
  let emit: (event: LabEvent) => void = () => undefined;

  /** Runs a command; a failure is reported as an 'error' event and rethrown to the caller. */
  const guarded = reportingFailures((error) => emit({ type: 'error', message: messageOf(error) }));

  function requireSession(): LabSession {
    if (!session) throw new Error('the trainer worker is not initialised: call init first');
    return session;
  }

  async function closeSession(): Promise<void> {
    await session?.dispose();
    await sandbox?.close();
    await helpers?.close();
    session = null;
    sandbox = null;
    helpers = null;
  }

  return {
    init(options, onEvent) {
      const deliver = callingBack(onEvent);
      emit = (event) => void deliver(event);
      return guarded(async () => {
        const backend = options?.backend;
        const baseModelUrl = options?.baseModelUrl;
        if (!BACKEND_CHOICES.includes(backend)) throw new Error(`backend must be one of ${BACKEND_CHOICES.join(', ')}, got ${JSON.stringify(backend)}`);
        if (typeof baseModelUrl !== 'string' || baseModelUrl === '') throw new Error('init needs the base model URL');
        await closeSession();
        const chosen = await environment.chooseBackend(backend);
        const { started, note } = await startHelpers(environment, chosen.name);
        helpers = started;
        const info = note ? { ...chosen, reason: `${chosen.reason}; ${note}` } : chosen;
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
          gradientHelpers: helpers?.helpers,
        });
        emit({ type: 'status', runId: null, status: 'idle', step: 0 });
        return info;
      });
    },
    ...sessionCommands(requireSession, guarded),
  };
}

/**
 * The environment's gradient helpers for `backend`, and a line for the backend's reason. Helpers that
 * cannot start are no reason to stop: the update runs on one thread, and the line says why.
 */
async function startHelpers(environment: TrainerEnvironment, backend: BackendName): Promise<{ started: GradientHelperSet | null; note: string | null }> {
  if (!environment.startGradientHelpers) return { started: null, note: null };
  try {
    const started = await environment.startGradientHelpers(backend);
    const count = started.helpers.length;
    return { started, note: count === 0 ? null : `the update shares its work with ${count} gradient helper worker${count === 1 ? '' : 's'}` };
  } catch (error) {
    return { started: null, note: `the update runs on one thread: ${messageOf(error)}` };
  }
}

/** Runs work; a failure goes to `report` and on to the caller. */
type Guard = <T>(work: () => Promise<T>) => Promise<T>;

function reportingFailures(report: (error: unknown) => void): Guard {
  return async (work) => {
    try {
      return await work();
    } catch (error) {
      report(error);
      throw error;
    }
  };
}

/** A command as the forwarding below calls it: arguments as received, a promised result. */
type ForwardedCommand = (...args: unknown[]) => Promise<unknown>;

/**
 * Every command but init, each calling the method of the same name on the session `current()`
 * returns (which throws before init), through `guard`. A function argument is a comlink proxy of a
 * page's callback (slowMotionStep's onStage, askModel's onAnswer): see callingBack.
 */
export function sessionCommands(current: () => TrainerCommands, guard: Guard): TrainerCommands {
  const forwarded = TRAINER_COMMANDS.filter((name): name is keyof TrainerCommands => name !== 'init').map((name) => {
    const command = (...args: unknown[]) =>
      guard(() => {
        const session = current();
        const method = session[name] as ForwardedCommand;
        return method.apply(session, args.map((arg) => (typeof arg === 'function' ? callingBack(arg as Callback) : arg)));
      });
    return [name, command] as const;
  });
  // Complete by construction: TRAINER_COMMANDS is every name of TrainerWorkerApi (protocol.ts).
  return Object.fromEntries(forwarded) as Record<keyof TrainerCommands, ForwardedCommand> as TrainerCommands;
}

type Callback = (...args: unknown[]) => unknown;

/**
 * A page's callback as the worker calls it. Calling a comlink proxy returns a promise, which
 * rejects when the page has gone away: a caller that waits for it (slow motion's Next) sees the
 * failure; one that does not (init's events, askModel's answer as it is written) must not leave an
 * unhandled rejection, so the worker goes on regardless.
 */
function callingBack<A extends unknown[]>(callback: (...args: A) => unknown): (...args: A) => Promise<unknown> {
  return (...args) => {
    const result = (async () => callback(...args))();
    result.catch(() => undefined);
    return result;
  };
}
