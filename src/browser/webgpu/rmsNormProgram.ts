/**
 * x * inverseSqrt(mean(x^2) + eps) over each row of the last axis, in one dispatch: one workgroup
 * per row sums the squares in shared memory (tfjs needs square, a matMul, rsqrt and a multiply).
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

const WORKGROUP = 64;

export class RmsNormProgram implements WebGPUProgram {
  readonly variableNames = ['x'];
  readonly outputShape: number[];
  readonly shaderKey = 'tirRmsNorm';
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [WORKGROUP, 1, 1];
  readonly size = true;
  readonly uniforms = 'rowLength : i32, eps : f32,';

  constructor(shape: number[]) {
    this.outputShape = shape;
    this.dispatchLayout = webgpu_util.flatDispatchLayout(shape);
    const rows = shape.slice(0, -1).reduce((a, b) => a * b, 1);
    this.dispatch = [rows, 1, 1];
  }

  getUserCode(): string {
    // No early return: every invocation must reach each workgroupBarrier (WGSL's uniformity rule).
    return `
      const WORKGROUP = ${WORKGROUP};
      var<workgroup> partial : array<f32, WORKGROUP>;

      fn main(index : i32) {
        let row = index / WORKGROUP;
        let tid = i32(localId.x);
        let rowLength = uniforms.rowLength;
        let start = row * rowLength;
        let inRange = start < uniforms.size;
        var squares = 0.0;
        if (inRange) {
          for (var c = tid; c < rowLength; c += WORKGROUP) {
            let value = x[start + c];
            squares += value * value;
          }
        }
        partial[tid] = squares;
        workgroupBarrier();
        for (var stride = WORKGROUP / 2; stride > 0; stride /= 2) {
          if (tid < stride) {
            partial[tid] += partial[tid + stride];
          }
          workgroupBarrier();
        }
        let scale = inverseSqrt(partial[0] / f32(rowLength) + uniforms.eps);
        if (inRange) {
          for (var c = tid; c < rowLength; c += WORKGROUP) {
            result[start + c] = x[start + c] * scale;
          }
        }
      }
    `;
  }
}
