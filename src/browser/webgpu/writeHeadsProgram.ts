/**
 * One position of a preallocated KV cache [B, H, capacity, D], written in place from the fused
 * projection qkv [1, B, 3C]: B * H * D values, whatever the cache's length so far. (Growing the
 * cache by concat, as tfjs must, copies the whole cache every token step.) The cache is the
 * program's output buffer, handed to runWebGPUProgram, so nothing else of it is touched.
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export class WriteHeadsProgram implements WebGPUProgram {
  readonly variableNames = ['qkv'];
  readonly outputShape: number[];
  readonly shaderKey = 'tirWriteHeads';
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [64, 1, 1];
  /** Where the key or value part starts within a row of qkv, and the cache position written. */
  readonly uniforms = 'partOffset : i32, position : i32,';

  /** cacheShape [B, H, capacity, D]: the output, written at one position only. */
  constructor(cacheShape: number[]) {
    this.outputShape = cacheShape;
    const [B, H, , D] = cacheShape;
    const written = [B * H * D];
    this.dispatchLayout = webgpu_util.flatDispatchLayout(written);
    this.dispatch = webgpu_util.computeDispatch(this.dispatchLayout, written, this.workgroupSize);
  }

  getUserCode(): string {
    return `
      fn main(index : i32) {
        let heads = uniforms.outShape.y;
        let capacity = uniforms.outShape.z;
        let headDim = uniforms.outShape.w;
        if (index < uniforms.outShape.x * heads * headDim) {
          let pair = index / headDim; // b * heads + h
          let d = index - pair * headDim;
          let b = pair / heads;
          let h = pair - b * heads;
          result[(pair * capacity + uniforms.position) * headDim + d] = qkv[b * uniforms.qkvShape.z + uniforms.partOffset + h * headDim + d];
        }
      }
    `;
  }
}
