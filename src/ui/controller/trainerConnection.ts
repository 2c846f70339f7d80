/**
 * The trainer worker behind the TrainerWorkerApi: a dedicated module worker reached through
 * comlink. Every command is forwarded as it is (proxyingCallbacks), so a new command needs nothing
 * here; a worker that fails to load or dies is reported through onCrash (comlink calls would
 * otherwise wait forever).
 */
import * as Comlink from 'comlink';
import { TRAINER_COMMANDS, type TrainerWorkerApi } from '../../trainerWorker/protocol';
import { TRAINER_WORKER_NAMES, type TrainerPurpose } from '../../trainerWorker/trainerWorkerName';

export interface TrainerConnection {
  api: TrainerWorkerApi;
  close(): void;
}

/** `purpose` 'sweepArm': a sweep arm's own worker (armWorker.ts); default the lab's. */
export type ConnectTrainer = (onCrash: (message: string) => void, purpose?: TrainerPurpose) => TrainerConnection;

export const connectTrainerWorker: ConnectTrainer = (onCrash, purpose = 'lab') => {
  const worker = new Worker(new URL('../../trainerWorker/trainer.worker.ts', import.meta.url), { type: 'module', name: TRAINER_WORKER_NAMES[purpose] });
  worker.addEventListener('error', (event) => onCrash(`the trainer worker failed: ${event.message || 'it could not load'}`));
  const remote = Comlink.wrap<TrainerWorkerApi>(worker);
  return {
    api: proxyingCallbacks(remote),
    close() {
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
};

/** A command as the forwarding below calls it: arguments as given, a promised result. */
type ForwardedCommand = (...args: unknown[]) => Promise<unknown>;

/**
 * The TrainerWorkerApi over comlink's remote, every function argument (init's event callback,
 * slowMotionStep's and askModel's) wrapped in Comlink.proxy: comlink posts an argument with
 * postMessage, whose structured clone throws a DataCloneError on a function; a proxied one stays
 * here and the worker calls it back through a port.
 */
export function proxyingCallbacks(remote: Comlink.RemoteObject<TrainerWorkerApi>): TrainerWorkerApi {
  const forwarded = TRAINER_COMMANDS.map((name) => {
    const command = (...args: unknown[]) => {
      const call = remote[name] as ForwardedCommand;
      return call(...args.map((arg) => (typeof arg === 'function' ? Comlink.proxy(arg) : arg)));
    };
    return [name, command] as const;
  });
  // Complete by construction: TRAINER_COMMANDS is every name of TrainerWorkerApi (protocol.ts).
  return Object.fromEntries(forwarded) as Record<keyof TrainerWorkerApi, ForwardedCommand> as TrainerWorkerApi;
}
