/**
 * model/sampling.ts's draw on the device: for each row of logits [B, V], the argmax (temperature 0)
 * or the inverse-CDF draw from softmax(logits / temperature) at the row's uniform draw, with the
 * token's log-probability, written to [B, 2] as (token, logProb). A token step then reads back
 * 2 numbers a row instead of V. One invocation per row: V is small (99), and B rows run side by side.
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export class SampleRowsProgram implements WebGPUProgram {
  readonly variableNames = ['logits', 'draws'];
  readonly outputShape: number[];
  readonly shaderKey = 'tirSampleRows';
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [64, 1, 1];
  /** scale = 1 / temperature (1 when greedy); greedy = 1 at temperature 0. */
  readonly uniforms = 'scale : f32, greedy : i32,';

  constructor(rows: number) {
    this.outputShape = [rows, 2];
    this.dispatchLayout = webgpu_util.flatDispatchLayout([rows]);
    this.dispatch = webgpu_util.computeDispatch(this.dispatchLayout, [rows], this.workgroupSize);
  }

  // A logit of -Infinity (outside a top-p nucleus) must weigh exactly 0. WGSL does not promise
  // exp(-inf) = 0, so a shifted logit below -88 (where f32's exp underflows anyway) weighs 0.
  getUserCode(): string {
    return `
      fn weight(shifted : f32) -> f32 {
        return select(0.0, exp(shifted), shifted > -88.0);
      }

      fn main(index : i32) {
        if (index < uniforms.logitsShape.x) {
          let V = uniforms.logitsShape.y;
          let start = index * V;
          var argmax = 0;
          var largest = -3.402823e+38;
          for (var i = 0; i < V; i++) {
            let x = logits[start + i];
            if (x > logits[start + argmax]) {
              argmax = i;
            }
            largest = max(largest, x * uniforms.scale);
          }
          var total = 0.0;
          for (var i = 0; i < V; i++) {
            total += weight(logits[start + i] * uniforms.scale - largest);
          }
          var token = argmax;
          if (uniforms.greedy == 0) {
            let threshold = total * draws[index];
            var cumulative = 0.0;
            var lastPossible = 0;
            var found = false;
            for (var i = 0; i < V && !found; i++) {
              let w = weight(logits[start + i] * uniforms.scale - largest);
              if (w > 0.0) {
                cumulative += w;
                lastPossible = i;
                found = threshold < cumulative;
              }
            }
            token = lastPossible;
          }
          result[index * 2] = f32(token);
          result[index * 2 + 1] = logits[start + token] * uniforms.scale - largest - log(total);
        }
      }
    `;
  }
}
