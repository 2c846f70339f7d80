/**
 * The fused WebGPU kernels (src/browser/webgpu/) in Debian Chromium's software adapter (SwiftShader):
 * each equals the plain tfjs ops it replaces, on webgpu and on cpu, from seeded random inputs over
 * several shapes (B = 1, T = 1, T past the attention kernel's 64-key tile, heads wider than a
 * workgroup, a cache filled only in part); the sampling kernel draws the JS sampler's tokens; the
 * fused Adam step equals tfjs's; a KV-cache decode with the fused kernels (a prefill into the
 * preallocated cache, rows dropped midway) equals the full forward; a token step runs fewer kernels; no tensor leaks.
 */
import { expect, test, type Page } from '@playwright/test';
import type { FusedKernelsHarness } from './harness/fusedKernels';

const HARNESS = '/e2e/harness/fusedKernels.html';
const TOLERANCE = 1e-4;

async function openHarness(page: Page): Promise<void> {
  page.on('console', (message) => {
    if (message.type() !== 'log') console.log(`[browser ${message.type()}] ${message.text()}`);
  });
  await page.goto(HARNESS);
  await page.waitForFunction(() => 'fusedKernelsHarness' in window);
}

async function call<K extends keyof FusedKernelsHarness>(page: Page, name: K): Promise<Awaited<ReturnType<FusedKernelsHarness[K]>>> {
  const started = Date.now();
  const result = await page.evaluate((n) => (window.fusedKernelsHarness[n] as () => Promise<never>)(), name);
  console.log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

test.describe('fused WebGPU kernels', () => {
  test.setTimeout(90_000);

  test('each kernel equals the plain tfjs ops on webgpu and on cpu', async ({ page }) => {
    await openHarness(page);
    const { comparisons, tensorsLeaked } = await call(page, 'compareKernels');
    for (const c of comparisons) console.log(`${c.kernel} ${c.label}: webgpu ${c.maxDiffWebgpu.toExponential(1)}, cpu ${c.maxDiffCpu.toExponential(1)}`);
    const cases = (kernel: string) => comparisons.filter((c) => c.kernel === kernel).length;
    expect([cases('TirRmsNorm'), cases('TirGeluGate'), cases('TirWriteHeads'), cases('TirAlibiAttention')]).toEqual([4, 3, 8, 8]);
    for (const c of comparisons) {
      expect(c.maxDiffWebgpu, `${c.kernel} ${c.label} vs webgpu`).toBeLessThan(TOLERANCE);
      expect(c.maxDiffCpu, `${c.kernel} ${c.label} vs cpu`).toBeLessThan(TOLERANCE);
    }
    // A write gives the whole cache back, one position changed; attention gives [1, B, C].
    expect(comparisons.find((c) => c.label === 'B=3 H=2 D=8 capacity=71 position=70 part=value')?.outputShape).toEqual([3, 2, 71, 8]);
    expect(comparisons.find((c) => c.label === 'B=5 H=3 D=24 T=100 capacity=101')?.outputShape).toEqual([1, 5, 72]);
    expect(tensorsLeaked).toBe(0);
  });

  test('sampling on the device draws the JS sampler\'s tokens and reads back 2 numbers a row', async ({ page }) => {
    await openHarness(page);
    const { comparisons, edgeTokens, tensorsLeaked } = await call(page, 'compareSampling');
    for (const c of comparisons) {
      console.log(`temperature ${c.temperature}: ${c.mismatches}/${c.rows} tokens differ, log-probs within ${c.maxLogProbDiff.toExponential(1)}`);
      expect(c.mismatches, `temperature ${c.temperature}`).toBe(0);
      expect(c.maxLogProbDiff, `temperature ${c.temperature}`).toBeLessThan(TOLERANCE);
      expect([c.readbacks, c.readbackBytes]).toEqual([1, c.rows * 2 * 4]);
    }
    // A draw of 0 takes the first token with weight, the largest draw below 1 the last (never one at -Infinity).
    expect(edgeTokens).toEqual([0, 2]);
    expect(tensorsLeaked).toBe(0);
  });

  test('the fused Adam step equals tfjs Adam, in 1 kernel call per variable instead of 14', async ({ page }) => {
    await openHarness(page);
    const { fused, mixed, plainWebgpu, plainCpu, tensorsLeaked } = await call(page, 'compareAdam');
    console.log(`Adam, 3 variables: fused ${fused.kernelsPerStep} kernel calls / ${fused.gpuProgramsPerStep} GPU programs per step; ` +
      `tfjs ${plainWebgpu.kernelsPerStep} / ${plainWebgpu.gpuProgramsPerStep}`);
    const diff = (a: number[], b: number[]) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
    expect(fused.values.length).toBe(3 * 5 + 64 + 7 * 130);
    expect(diff(fused.values, plainWebgpu.values)).toBeLessThan(TOLERANCE);
    expect(diff(fused.values, plainCpu.values)).toBeLessThan(TOLERANCE);
    // Moments, beta powers and the step count carry over from fused steps to tfjs's own.
    expect(diff(mixed.values, plainWebgpu.values)).toBeLessThan(TOLERANCE);
    expect([fused.iterations, mixed.iterations, plainWebgpu.iterations, plainCpu.iterations]).toEqual([3, 3, 3, 3]);
    // tfjs: 14 kernels per variable and 4 for the beta powers; fused: one call (three programs) per variable.
    expect(plainWebgpu.kernelsPerStep).toBe(3 * 14 + 4);
    expect(fused.kernelsPerStep).toBe(3);
    expect(fused.gpuProgramsPerStep).toBe(9);
    expect(plainWebgpu.gpuProgramsPerStep).toBeGreaterThan(3 * 9);
    expect(tensorsLeaked).toBe(0);
  });

  test('a KV-cache decode with fused kernels equals the full forward, with fewer kernels per token step', async ({ page }) => {
    await openHarness(page);
    const decode = await call(page, 'compareDecode');
    console.log(`decode vs forward over ${decode.positions} positions (${decode.prefilled} prefilled): logits ${decode.maxLogitDiff.toExponential(1)}, values ${decode.maxValueDiff.toExponential(1)}`);
    // The prefill runs the training pass's attention; each later position, the fused kernel in both layers.
    expect(decode.fusedAttentionCalls).toBe(2 * (decode.positions - decode.prefilled));
    expect(decode.maxLogitDiff).toBeLessThan(TOLERANCE);
    expect(decode.maxValueDiff).toBeLessThan(TOLERANCE);
    expect(decode.tensorsLeaked).toBe(0);

    const { plain, fused } = await call(page, 'tokenStepCost');
    for (const [name, cost] of Object.entries({ plain, fused })) {
      console.log(`BASE_MODEL_CONFIG token step, ${name}: ${cost.kernelsPerStep} kernel calls (${cost.kernelsLastStep} in the last step), ` +
        `${cost.gpuProgramsPerStep} GPU programs, median ${cost.medianStepMs} ms; ${JSON.stringify(cost.byKernel)}`);
    }
    // Plain, hand-counted per layer after the first step: 2 LayerNorms x 4, 6 matMuls, split, 4 reshapes,
    // 2 concats, softmax, 3 adds (ALiBi row, 2 residuals), 5 for the GELU gate = 30; plus gather, a
    // LayerNorm, 2 heads, 2 reshapes = 9.
    expect(plain.kernelsLastStep).toBe(3 * 30 + 9);
    // Fused per layer: 2 LayerNorms, 4 matMuls, 2 cache writes, attention, 2 adds, the gate = 12; plus 6.
    expect(fused.kernelsLastStep).toBe(3 * 12 + 6);
    expect(fused.byKernel).toMatchObject({ TirRmsNorm: 7, TirGeluGate: 3, TirWriteHeads: 6, TirAlibiAttention: 3 });
    expect(fused.gpuProgramsPerStep).toBeLessThan(plain.gpuProgramsPerStep / 2);
    expect([plain.tensorsLeaked, fused.tensorsLeaked]).toEqual([0, 0]);
  });

  test('the clipped update reads the true global norm of 43 gradients (more than AddN may bind at once)', async ({ page }) => {
    await openHarness(page);
    const { norm, expected, tensorsLeaked } = await call(page, 'gradientNorm');
    expect(norm).toBeCloseTo(expected, 3);
    expect(tensorsLeaked).toBe(0);
  });
});
