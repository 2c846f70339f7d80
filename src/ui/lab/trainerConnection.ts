/**
 * The trainer worker behind the TrainerWorkerApi: a dedicated module worker reached through
 * comlink. The event callback crosses as a comlink proxy; a worker that fails to load or dies is
 * reported through onCrash (comlink calls would otherwise wait forever).
 */
import * as Comlink from 'comlink';
import type { TrainerWorkerApi } from '../../labWorker/protocol';
import { TRAINER_WORKER_NAMES, type TrainerPurpose } from '../../labWorker/trainerWorkerName';

export interface TrainerConnection {
  api: TrainerWorkerApi;
  close(): void;
}

/** `purpose` 'sweepArm': a sweep arm's own worker (armWorker.ts); default the lab's. */
export type ConnectTrainer = (onCrash: (message: string) => void, purpose?: TrainerPurpose) => TrainerConnection;

export const connectTrainerWorker: ConnectTrainer = (onCrash, purpose = 'lab') => {
  const worker = new Worker(new URL('../../../workers/trainer.worker.ts', import.meta.url), { type: 'module', name: TRAINER_WORKER_NAMES[purpose] });
  worker.addEventListener('error', (event) => onCrash(`the trainer worker failed: ${event.message || 'it could not load'}`));
  const remote = Comlink.wrap<TrainerWorkerApi>(worker);
  const api: TrainerWorkerApi = {
    init: (options, onEvent) => remote.init(options, Comlink.proxy(onEvent)),
    startRun: (runId, config, from) => remote.startRun(runId, config, from),
    train: () => remote.train(),
    pause: () => remote.pause(),
    step: () => remote.step(),
    slowMotionStep: (onStage) => remote.slowMotionStep(Comlink.proxy(onStage)),
    reset: () => remote.reset(),
    saveCheckpoint: () => remote.saveCheckpoint(),
    evaluate: (nmaxValues) => remote.evaluate(nmaxValues),
    pretrain: (options) => remote.pretrain(options),
    evaluatePassAtOne: (request) => remote.evaluatePassAtOne(request),
    cancelEvaluation: () => remote.cancelEvaluation(),
    askModel: (request, onAnswer) => remote.askModel(request, Comlink.proxy(onAnswer)),
  };
  return {
    api,
    close() {
      remote[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
};
