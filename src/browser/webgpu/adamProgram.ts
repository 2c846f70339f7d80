/**
 * One of Adam's three results for one variable, elementwise in one dispatch (tfjs's optimizer needs
 * 14 kernels per variable for all three). Each program recomputes the new moments it needs from
 * the old ones rather than reading them back, so the three do not depend on one another.
 */
import { webgpu_util, type WebGPUProgram } from '@tensorflow/tfjs-backend-webgpu';

export type AdamResult = 'value' | 'firstMoment' | 'secondMoment';

/** Hyperparameters as uniforms (one compiled shader per result, whatever the learning rate). */
export const ADAM_UNIFORMS =
  'learningRate : f32, beta1 : f32, oneMinusBeta1 : f32, beta2 : f32, oneMinusBeta2 : f32, epsilon : f32, firstCorrection : f32, secondCorrection : f32,';

const INPUTS: Record<AdamResult, string[]> = {
  value: ['param', 'firstMoment', 'secondMoment', 'gradient'],
  firstMoment: ['firstMoment', 'gradient'],
  secondMoment: ['secondMoment', 'gradient'],
};

const RESULTS: Record<AdamResult, string> = {
  firstMoment: 'm',
  secondMoment: 'v',
  // tfjs's order: value + (-lr) * (mHat / (sqrt(vHat) + epsilon))
  value: 'param[index] + (-uniforms.learningRate) * ((m / uniforms.firstCorrection) / (sqrt(v / uniforms.secondCorrection) + uniforms.epsilon))',
};

export class AdamProgram implements WebGPUProgram {
  readonly variableNames: string[];
  readonly outputShape: number[];
  readonly shaderKey: string;
  readonly dispatchLayout: { x: number[] };
  dispatch: [number, number, number];
  readonly workgroupSize: [number, number, number] = [64, 1, 1];
  readonly size = true;
  readonly uniforms = ADAM_UNIFORMS;

  constructor(
    shape: number[],
    private readonly resultName: AdamResult,
  ) {
    this.outputShape = shape;
    this.variableNames = INPUTS[resultName];
    this.shaderKey = `tirAdam_${resultName}`;
    this.dispatchLayout = webgpu_util.flatDispatchLayout(shape);
    this.dispatch = webgpu_util.computeDispatch(this.dispatchLayout, shape, this.workgroupSize);
  }

  getUserCode(): string {
    const needs = (name: string) => this.variableNames.includes(name);
    return `
      fn main(index : i32) {
        if (index < uniforms.size) {
          let g = gradient[index];
          ${needs('firstMoment') ? 'let m = firstMoment[index] * uniforms.beta1 + g * uniforms.oneMinusBeta1;' : ''}
          ${needs('secondMoment') ? 'let v = secondMoment[index] * uniforms.beta2 + (g * g) * uniforms.oneMinusBeta2;' : ''}
          setOutputAtIndex(index, ${RESULTS[this.resultName]});
        }
      }
    `;
  }
}
