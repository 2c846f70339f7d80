/**
 * Backend choice in Node, where tfjs has wasm and cpu (WebGPU and WebGL are browser-only): the
 * probe picks the faster working backend and frees its tensors, an override skips the probe, and
 * a backend that cannot start is refused with the reason (missing, failed init, hung init).
 */
import * as tf from '@tensorflow/tfjs-core';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseBackend } from '../src/browser/tf/chooseBackend';
import { timeProbeWorkload, type ProbeSettings } from '../src/browser/tf/probeWorkload';
import { queryWebGPUAdapter } from '../src/browser/tf/webgpuAdapter';
import { useNodeBackend } from '../src/node/tfBackend';

const SMALL_PROBE: ProbeSettings = { batchSize: 4, tokenSteps: 2, updateRows: 2, updateLength: 8, capMs: 60_000 };

afterEach(async () => {
  // A test may leave a fake backend registered or another backend active.
  for (const name of ['webgl', 'webgpu']) if (tf.findBackendFactory(name)) tf.removeBackend(name);
  await useNodeBackend('wasm');
});

describe('timeProbeWorkload', () => {
  it('times a full round and frees every tensor it made', async () => {
    await useNodeBackend('wasm');
    const before = tf.memory().numTensors;
    const timing = await timeProbeWorkload(SMALL_PROBE);
    expect(timing).toMatchObject({ stopped: null, stoppedInWarmUp: false });
    expect(timing.ms).toBeGreaterThan(0);
    expect(tf.memory().numTensors).toBe(before);
  });

  it('stops at the cap, or as soon as it is slower than the best so far (in the warm-up too, without shaders)', async () => {
    const before = tf.memory().numTensors;
    expect(await timeProbeWorkload({ ...SMALL_PROBE, capMs: 0 })).toMatchObject({ stopped: 'cap', stoppedInWarmUp: true });
    expect(await timeProbeWorkload(SMALL_PROBE, 0)).toMatchObject({ stopped: 'slower', stoppedInWarmUp: false });
    expect(await timeProbeWorkload(SMALL_PROBE, 0, false)).toMatchObject({ stopped: 'slower', stoppedInWarmUp: true });
    expect(tf.memory().numTensors).toBe(before);
  });
});

describe('chooseBackend', () => {
  it('auto: probes each candidate and keeps the one with the shortest timed round', async () => {
    const info = await chooseBackend('auto', { candidates: ['wasm', 'cpu'], probe: SMALL_PROBE });
    expect(Object.keys(info.probeMs)).toEqual(['wasm', 'cpu']);
    const wasm = info.probeMs.wasm!;
    const cpu = info.probeMs.cpu!;
    expect(wasm).toBeGreaterThan(0);
    expect(cpu).toBeGreaterThan(0);
    // cpu's round stops once slower than wasm's; if cpu finishes first it wins.
    expect(info.name).toBe(cpu < wasm ? 'cpu' : 'wasm');
    expect(tf.getBackend()).toBe(info.name);
    expect(info.adapter).toBeNull();
    expect(info.reason).toContain(`${info.name}: fastest in the probe (2 token steps at batch 4 + a 2x8 training pass): wasm ${wasm} ms, cpu ${cpu} ms`);
  });

  it('an override starts that backend without probing', async () => {
    const info = await chooseBackend('cpu');
    expect(info).toEqual({ name: 'cpu', adapter: null, probeMs: {}, reason: 'cpu chosen by override (not probed)' });
    expect(tf.getBackend()).toBe('cpu');
  });

  it('refuses an override that cannot start, saying why', async () => {
    // Node has no navigator.gpu, as a browser without WebGPU.
    expect(await queryWebGPUAdapter()).toEqual({ adapter: null, problem: 'this browser has no WebGPU (navigator.gpu is missing)' });
    await expect(chooseBackend('webgpu')).rejects.toThrow(
      'the webgpu backend could not start: this browser has no WebGPU (navigator.gpu is missing)',
    );
    await expect(chooseBackend('webgl')).rejects.toThrow('the webgl backend could not start: tfjs has no webgl backend registered here');
    const noAdapter = async () => ({ adapter: null, problem: 'navigator.gpu.requestAdapter() found no adapter' });
    await expect(chooseBackend('webgpu', { queryAdapter: noAdapter })).rejects.toThrow(
      'the webgpu backend could not start: navigator.gpu.requestAdapter() found no adapter',
    );
  });

  it('auto: a backend whose start fails or hangs gets null and is unregistered; the rest still compete', async () => {
    tf.registerBackend('webgl', async () => {
      throw new Error('no GL context');
    });
    tf.registerBackend('webgpu', () => new Promise<never>(() => undefined));
    const adapter = { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true };
    const info = await chooseBackend('auto', {
      candidates: ['wasm', 'webgl', 'webgpu'],
      probe: SMALL_PROBE,
      startTimeoutMs: 200,
      queryAdapter: async () => ({ adapter, problem: null }),
    });
    expect(info.name).toBe('wasm');
    expect(info.probeMs).toEqual({ wasm: info.probeMs.wasm, webgl: null, webgpu: null });
    expect(info.adapter).toEqual(adapter);
    expect(info.reason).toContain('webgl: initialisation failed (tfjs logged the cause to the console)');
    expect(info.reason).toContain('webgpu: did not start within 0.2 s');
    expect(info.reason).toContain('WebGPU adapter google/swiftshader is a fallback (software) adapter');
    expect(tf.findBackendFactory('webgl')).toBeNull();
    expect(tf.findBackendFactory('webgpu')).toBeNull();
    expect(tf.getBackend()).toBe('wasm');
  });

  it('fails with every reason when no candidate can start', async () => {
    await expect(chooseBackend('auto', { candidates: ['webgl'], probe: SMALL_PROBE })).rejects.toThrow(
      'no tfjs backend could start: webgl: tfjs has no webgl backend registered here',
    );
  });
});
