/**
 * decoding.ts's GELU, x * sigmoid(x * (x^2 + offset)), elementwise in one dispatch (tfjs needs
 * square, add, multiply, sigmoid and multiply).
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export class GeluGateProgram implements WebGPUProgram {
  readonly variableNames = ['x'];
  readonly outputShape: number[];
  readonly shaderKey = 'tirGeluGate';
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [64, 1, 1];
  readonly size = true;
  readonly uniforms = 'offset : f32,';

  constructor(shape: number[]) {
    this.outputShape = shape;
    this.dispatchLayout = webgpu_util.flatDispatchLayout(shape);
    this.dispatch = webgpu_util.computeDispatch(this.dispatchLayout, shape, this.workgroupSize);
  }

  getUserCode(): string {
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let h = x[index];
          setOutputAtIndex(index, h / (1.0 + exp(-h * (h * h + uniforms.offset))));
        }
      }
    `;
  }
}
