/**
 * Picks the tfjs backend the lab trains on. 'auto' starts each candidate and times the probe
 * workload, then keeps the fastest that works: a GPU name is no promise of speed (a software
 * WebGPU adapter ran matmuls ~50x slower than WASM SIMD here). An explicit choice skips the probe
 * and fails with the reason when that backend cannot start. Backends must be registered first.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { BackendChoice, BackendInfo, BackendName } from '../../trainerWorker/protocol';
import { LAB_PROBE, timeProbeWorkload, type ProbeSettings } from './probeWorkload';
import { prepareWasmKernels } from '../../core/model/wasmKernels';
import { wasmBuildNote } from './wasmBuildNote';
import { queryWebGPUAdapter, type AdapterFacts } from './webgpuAdapter';

export interface ChooseBackendOptions {
  /** Backends to probe, in order (ties go to the earlier one). */
  candidates?: BackendName[];
  probe?: ProbeSettings;
  /** A backend whose start takes longer counts as failed. */
  startTimeoutMs?: number;
  queryAdapter?: () => Promise<{ adapter: AdapterFacts | null; problem: string | null }>;
}

/** Probe order: wasm first, as it nearly always works and is quick, so slower backends stop early. */
export const BACKEND_NAMES: readonly BackendName[] = ['wasm', 'webgpu', 'webgl', 'cpu'];
const GPU_BACKENDS: readonly BackendName[] = ['webgpu', 'webgl'];

export async function chooseBackend(choice: BackendChoice, options: ChooseBackendOptions = {}): Promise<BackendInfo> {
  const candidates = options.candidates ?? [...BACKEND_NAMES];
  const probe = options.probe ?? LAB_PROBE;
  const startTimeoutMs = options.startTimeoutMs ?? 15_000;
  const needsAdapter = choice === 'webgpu' || (choice === 'auto' && candidates.includes('webgpu'));
  const { adapter, problem } = needsAdapter ? await (options.queryAdapter ?? queryWebGPUAdapter)() : { adapter: null, problem: null };

  if (choice !== 'auto') {
    try {
      await startBackend(choice, startTimeoutMs, problem);
    } catch (error) {
      throw new Error(`the ${choice} backend could not start: ${(error as Error).message}`);
    }
    return { name: choice, adapter, probeMs: {}, reason: `${choice} chosen by override (not probed)${adapterNote(choice, adapter)}${wasmNote([choice])}` };
  }

  const probeMs: Partial<Record<BackendName, number | null>> = {};
  const notes: string[] = [];
  const started: BackendName[] = [];
  let best: { name: BackendName; ms: number } | null = null;
  for (const name of candidates) {
    try {
      await startBackend(name, startTimeoutMs, problem);
      started.push(name);
      const timing = await timeProbeWorkload(probe, best?.ms, GPU_BACKENDS.includes(name));
      probeMs[name] = Math.round(timing.ms * 10) / 10;
      if (timing.stopped === 'cap') notes.push(`${name} stopped at the ${probe.capMs} ms cap`);
      else if (timing.stopped === 'slower') notes.push(`${name} stopped once slower than ${best?.name}`);
      else if (!best || timing.ms < best.ms) best = { name, ms: timing.ms };
    } catch (error) {
      probeMs[name] = null;
      notes.push(`${name}: ${(error as Error).message}`);
    }
  }
  const winner = best?.name ?? started[0];
  if (winner === undefined) throw new Error(`no tfjs backend could start: ${notes.join('; ')}`);
  await tf.setBackend(winner);
  await tf.ready();
  // Free the GPU contexts of the losers; the worker is restarted to change backend.
  for (const name of GPU_BACKENDS) if (name !== winner && tf.findBackendFactory(name)) tf.removeBackend(name);

  const figures = candidates.map((name) => `${name} ${probeMs[name] === null ? 'failed' : `${probeMs[name]} ms`}`).join(', ');
  const workload = `${probe.tokenSteps} token steps at batch ${probe.batchSize} + a ${probe.updateRows}x${probe.updateLength} training pass`;
  const verdict = best ? `fastest in the probe (${workload})` : 'the first that started (every probe hit its cap)';
  const reason = `${winner}: ${verdict}: ${figures}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}${adapterNote('webgpu', adapter)}${wasmNote(started)}`;
  return { name: winner, adapter, probeMs, reason };
}

/** Starts a registered backend or throws why not (the adapter problem for WebGPU, a timeout, a failed init). */
async function startBackend(name: BackendName, timeoutMs: number, adapterProblem: string | null): Promise<void> {
  if (name === 'webgpu' && adapterProblem) throw new Error(adapterProblem);
  if (!tf.findBackendFactory(name)) throw new Error(`tfjs has no ${name} backend registered here`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const outcome = await Promise.race([tf.setBackend(name), timeout]);
  clearTimeout(timer);
  if (outcome !== true) {
    // Drop the half-started backend so tfjs never falls back to it on its own.
    tf.removeBackend(name);
    throw new Error(outcome === 'timeout' ? `did not start within ${timeoutMs / 1000} s` : 'initialisation failed (tfjs logged the cause to the console)');
  }
  // The lab's own wasm kernels, compiled off the main thread's synchronous 4 KB limit (wasmKernels.ts).
  if (name === 'wasm') await prepareWasmKernels();
}

/** Which wasm build ran (threads or not, and why), once the wasm backend has started. */
function wasmNote(started: readonly BackendName[]): string {
  const note = started.includes('wasm') ? wasmBuildNote() : null;
  return note ? `; ${note}` : '';
}

function adapterNote(name: BackendName, adapter: AdapterFacts | null): string {
  if (name !== 'webgpu' || !adapter) return '';
  const kind = adapter.isFallbackAdapter ? 'a fallback (software) adapter' : 'a hardware adapter';
  return `; WebGPU adapter ${adapter.vendor}/${adapter.architecture} is ${kind}`;
}
