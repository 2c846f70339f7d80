/**
 * The trainer worker's name (the Worker constructor's `name`, read in the worker as `self.name`),
 * which tells a worker its part before any of its modules start: the lab's own worker picks its
 * wasm threads by the cores, a sweep arm's worker runs one (sweepLanes.ts says why).
 */
export const TRAINER_WORKER_NAMES = { lab: 'trainer', sweepArm: 'trainer-sweep-arm' } as const;

export type TrainerPurpose = keyof typeof TRAINER_WORKER_NAMES;
