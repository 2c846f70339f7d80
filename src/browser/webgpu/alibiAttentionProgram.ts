/**
 * Single-query attention with ALiBi against a KV cache, in one dispatch: for each sequence b and
 * head h, the query (from qkv [1, B, 3C], pre-scaled by 1/sqrt(D)) at position T - 1 against the
 * first T positions of keys and values [B, H, capacity, D] gives softmax_j(q . k_j - slope_h (T - 1 - j))
 * summed over v_j, written to [1, B, C] at h*D. T is a uniform, so a preallocated cache is read only
 * as far as it is filled. tfjs needs matMul, add (an uploaded bias row), softmax and matMul, plus reshapes.
 *
 * One workgroup per (b, h). Any T: the keys are visited in tiles of WORKGROUP, so shared memory
 * does not grow with the context. Three passes: the largest score (so exp cannot overflow); per
 * tile, each thread one key's weight exp(score - max) into shared memory, then each (key group, d)
 * item adds its share of the tile's weighted values; last, the groups' sums over the weights' total.
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';
import { alibiSlopes } from '../../core/model/weights';

const WORKGROUP = 64;

export class AlibiAttentionProgram implements WebGPUProgram {
  readonly variableNames = ['qkv', 'keyCache', 'valueCache'];
  readonly outputShape: number[];
  readonly shaderKey: string;
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [WORKGROUP, 1, 1];
  /** The positions filled so far; the query is the last of them. */
  readonly uniforms = 'length : i32,';

  /** outputShape [1, B, C]; the head count and width are compiled in (with the slopes). */
  constructor(
    outputShape: number[],
    private readonly nHead: number,
  ) {
    this.outputShape = outputShape;
    this.shaderKey = `tirAlibiAttention_${nHead}_${outputShape[2] / nHead}`;
    this.dispatchLayout = webgpu_util.flatDispatchLayout(outputShape);
    this.dispatch = [outputShape[1] * nHead, 1, 1];
  }

  getUserCode(): string {
    const H = this.nHead;
    const D = this.outputShape[2] / H;
    // (group, d) items of the weighted sum: WORKGROUP / D key groups when a head fits, else one.
    const groups = Math.max(1, Math.floor(WORKGROUP / D));
    const itemsPerThread = Math.ceil((groups * D) / WORKGROUP);
    const slopes = alibiSlopes(H).map((s) => Math.fround(s).toPrecision(9));
    // No early return: every invocation must reach each workgroupBarrier (WGSL's uniformity rule).
    return `
      const WORKGROUP = ${WORKGROUP};
      const HEADS = ${H};
      const HEAD_DIM = ${D};
      const GROUPS = ${groups};
      const ITEMS = ${itemsPerThread};
      var<workgroup> reduction : array<f32, WORKGROUP>;
      var<workgroup> tileWeights : array<f32, WORKGROUP>;
      var<workgroup> groupSums : array<f32, ${groups * D}>;
      var<private> query : array<f32, HEAD_DIM>;

      fn score(keyStart : i32, bias : f32) -> f32 {
        var product = 0.0;
        for (var d = 0; d < HEAD_DIM; d++) {
          product += query[d] * keyCache[keyStart + d];
        }
        return product + bias;
      }

      fn main(index : i32) {
        let pair = index / WORKGROUP; // b * HEADS + h
        let tid = i32(localId.x);
        let b = pair / HEADS;
        let h = pair - b * HEADS;
        let inRange = b < uniforms.outShape.y;
        var slopes = array<f32, HEADS>(${slopes.join(', ')});
        let slope = slopes[h];
        let T = uniforms.length;
        let queryPosition = T - 1;
        let cacheStart = pair * uniforms.keyCacheShape.z * HEAD_DIM;
        let rowWidth = uniforms.qkvShape.z;
        if (inRange) {
          for (var d = 0; d < HEAD_DIM; d++) {
            query[d] = qkv[b * rowWidth + h * HEAD_DIM + d];
          }
        }

        var localMax = -3.402823e+38;
        if (inRange) {
          for (var j = tid; j < T; j += WORKGROUP) {
            localMax = max(localMax, score(cacheStart + j * HEAD_DIM, -slope * f32(queryPosition - j)));
          }
        }
        reduction[tid] = localMax;
        workgroupBarrier();
        for (var stride = WORKGROUP / 2; stride > 0; stride /= 2) {
          if (tid < stride) {
            reduction[tid] = max(reduction[tid], reduction[tid + stride]);
          }
          workgroupBarrier();
        }
        let maxScore = reduction[0];
        workgroupBarrier();

        var weightSum = 0.0;
        var partialSums : array<f32, ITEMS>;
        for (var tileStart = 0; tileStart < T; tileStart += WORKGROUP) {
          let j = tileStart + tid;
          var weight = 0.0;
          if (inRange && j < T) {
            weight = exp(score(cacheStart + j * HEAD_DIM, -slope * f32(queryPosition - j)) - maxScore);
          }
          tileWeights[tid] = weight;
          weightSum += weight;
          workgroupBarrier();
          let tileLength = min(WORKGROUP, T - tileStart);
          for (var r = 0; r < ITEMS; r++) {
            let item = tid + r * WORKGROUP;
            if (inRange && item < GROUPS * HEAD_DIM) {
              let keyGroup = item / HEAD_DIM;
              let d = item - keyGroup * HEAD_DIM;
              for (var k = keyGroup; k < tileLength; k += GROUPS) {
                partialSums[r] += tileWeights[k] * valueCache[cacheStart + (tileStart + k) * HEAD_DIM + d];
              }
            }
          }
          workgroupBarrier();
        }

        reduction[tid] = weightSum;
        for (var r = 0; r < ITEMS; r++) {
          let item = tid + r * WORKGROUP;
          if (item < GROUPS * HEAD_DIM) {
            groupSums[item] = partialSums[r];
          }
        }
        workgroupBarrier();
        for (var stride = WORKGROUP / 2; stride > 0; stride /= 2) {
          if (tid < stride) {
            reduction[tid] += reduction[tid + stride];
          }
          workgroupBarrier();
        }
        let total = reduction[0];
        if (inRange) {
          let width = HEADS * HEAD_DIM;
          for (var d = tid; d < HEAD_DIM; d += WORKGROUP) {
            var sum = 0.0;
            for (var keyGroup = 0; keyGroup < GROUPS; keyGroup++) {
              sum += groupSums[keyGroup * HEAD_DIM + d];
            }
            result[b * width + h * HEAD_DIM + d] = sum / total;
          }
        }
      }
    `;
  }
}
