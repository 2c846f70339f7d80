/**
 * A KV cache [B, H, T, D] grown by one position, read straight from the fused projection
 * qkv [1, B, 3C]: [B, H, T + 1, D] in one dispatch (tfjs needs split, reshape and concat). With no
 * cache yet (the first position) it lays out that position's heads alone.
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export class AppendHeadsProgram implements WebGPUProgram {
  readonly variableNames: string[];
  readonly outputShape: number[];
  readonly shaderKey: string;
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [64, 1, 1];
  readonly size = true;
  /** Where the key or value part starts within a row of qkv. */
  readonly uniforms = 'partOffset : i32,';

  /** outputShape [B, H, T + 1, D]; `withPast`: a cache of T positions is the second input. */
  constructor(
    outputShape: number[],
    private readonly withPast: boolean,
  ) {
    this.outputShape = outputShape;
    this.variableNames = withPast ? ['qkv', 'past'] : ['qkv'];
    this.shaderKey = `tirAppendHeads_${withPast ? 'past' : 'first'}`;
    this.dispatchLayout = webgpu_util.flatDispatchLayout(outputShape);
    this.dispatch = webgpu_util.computeDispatch(this.dispatchLayout, outputShape, this.workgroupSize);
  }

  getUserCode(): string {
    const fromPast = `
          if (coords.z < uniforms.pastShape.z) {
            setOutputAtIndex(index, getPast(coords.x, coords.y, coords.z, coords.w));
            return;
          }`;
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let coords = getCoordsFromIndex(index); // (b, h, t, d)
          ${this.withPast ? fromPast : ''}
          let headDim = uniforms.outShape.w;
          setOutputAtIndex(index, getQkv(0, coords.x, uniforms.partOffset + coords.y * headDim + coords.w));
        }
      }
    `;
  }
}
