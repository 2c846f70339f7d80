/**
 * The backend probe's workload: what an RL step does most, in miniature, on the shipped model's
 * shape. Token steps at the lab's rollout batch size (each read back, as sampling does), then one
 * forward and backward pass (as the update does). One untimed round warms up (shader compiles,
 * wasm start), one round is timed. The work stops at a time cap, or as soon as the timed round is
 * slower than the best backend so far, so a slow backend costs little.
 */
import * as tf from '@tensorflow/tfjs-core';
import { PRESETS } from '../../core/experiment';
import { BASE_MODEL_CONFIG } from '../../core/model/config';
import { GPT } from '../../core/model/gpt';

export interface ProbeSettings {
  /** Sequences decoded together (the lab's prompts x group). */
  batchSize: number;
  tokenSteps: number;
  /** Rows and length of the training pass. */
  updateRows: number;
  updateLength: number;
  /** Warm-up and timed round together stop after this long. */
  capMs: number;
}

export const LAB_PROBE: ProbeSettings = {
  batchSize: PRESETS.quick.promptsPerStep * PRESETS.quick.groupSize,
  tokenSteps: 8,
  updateRows: 8,
  updateLength: 64,
  capMs: 2500,
};

export interface ProbeTiming {
  /** Milliseconds of the timed round; a lower bound when stopped early. */
  ms: number;
  /** Why the probe stopped before the end: the time cap, or already slower than `beatMs`. */
  stopped: 'cap' | 'slower' | null;
  /** It stopped before the timed round began. */
  stoppedInWarmUp: boolean;
}

class ProbeStopped extends Error {
  constructor(readonly why: 'cap' | 'slower') {
    super(`probe stopped: ${why}`);
  }
}

/**
 * Times the workload on the current tfjs backend; every tensor it makes is freed. `beatMs` is the
 * best timed round so far: once this round is slower, it cannot win and stops. `compiles` says the
 * backend compiles shaders on first use (WebGPU, WebGL); one that does not (wasm, cpu) shows its
 * speed in the warm-up round already, which then stops as soon as it is slower too.
 */
export async function timeProbeWorkload(settings: ProbeSettings = LAB_PROBE, beatMs = Infinity, compiles = true): Promise<ProbeTiming> {
  const started = performance.now();
  let timedFrom: number | null = null;
  const checkLimits = () => {
    const now = performance.now();
    if (now - started > settings.capMs) throw new ProbeStopped('cap');
    if (now - (timedFrom ?? (compiles ? Infinity : started)) > beatMs) throw new ProbeStopped('slower');
  };
  // A GPU readback can take seconds (a first use compiles every shader): stop waiting at the cap.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new ProbeStopped('cap')), settings.capMs)));
  deadline.catch(() => undefined);
  const withinCap = <T>(work: Promise<T>): Promise<T> => {
    work.catch(() => undefined); // an abandoned readback may fail later, when the losing backend is removed
    return Promise.race([work, deadline]);
  };
  const model = GPT.init(BASE_MODEL_CONFIG, 0);
  try {
    await probeRound(model, settings, checkLimits, withinCap);
    timedFrom = performance.now();
    await probeRound(model, settings, checkLimits, withinCap);
    return { ms: performance.now() - timedFrom, stopped: null, stoppedInWarmUp: false };
  } catch (error) {
    if (!(error instanceof ProbeStopped)) throw error;
    return { ms: performance.now() - (timedFrom ?? started), stopped: error.why, stoppedInWarmUp: timedFrom === null };
  } finally {
    clearTimeout(timer);
    model.dispose();
  }
}

async function probeRound(
  model: GPT,
  settings: ProbeSettings,
  checkLimits: () => void,
  withinCap: <T>(work: Promise<T>) => Promise<T>,
): Promise<void> {
  const { vocabSize } = model.config;
  const cache = model.newCache(settings.batchSize);
  try {
    const tokens = new Int32Array(settings.batchSize);
    for (let t = 0; t < settings.tokenSteps; t++) {
      for (let b = 0; b < tokens.length; b++) tokens[b] = (7 * t + b) % vocabSize;
      const { logits, values } = model.step(cache, tokens);
      try {
        await withinCap(logits.data());
      } finally {
        tf.dispose([logits, values]);
      }
      checkLimits();
    }
  } finally {
    cache.dispose();
  }
  const ids = new Int32Array(settings.updateRows * settings.updateLength).map((_, i) => (3 * i) % vocabSize);
  const input = tf.tensor2d(ids, [settings.updateRows, settings.updateLength], 'int32');
  const { value, grads } = tf.variableGrads(() => {
    const { logits, values } = model.forward(input);
    return tf.add(tf.mean(tf.square(logits)), tf.mean(values)) as tf.Scalar;
  }, model.trainableVariables());
  try {
    // Reading every gradient waits for the whole backward pass on GPU backends too.
    await withinCap(Promise.all([value, ...Object.values(grads)].map((t) => t.data())));
  } finally {
    tf.dispose([input, value, ...Object.values(grads)]);
  }
  checkLimits();
}
