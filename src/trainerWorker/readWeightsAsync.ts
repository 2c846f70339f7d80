/**
 * Reads every weight back asynchronously, before serializeCheckpoint's dataSync, which then gets
 * the CPU copy the async read left. On WebGPU a synchronous read goes through a canvas, and in
 * Chromium (SwiftShader, in a worker) the next asynchronous read then fails with "A valid external
 * Instance reference no longer exists" (reproduced here: dataSync, then data()).
 */
import type { GPT } from '../core/model/gpt';

export async function readWeightsAsync(model: GPT): Promise<void> {
  await Promise.all(model.trainableVariables().map((variable) => variable.data()));
}
