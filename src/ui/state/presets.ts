/**
 * The lab's presets: a label for people and the experiment it runs, as a name -> definition map
 * (TensorFlow Playground's datasets). The engine's PRESETS hold the configs; the sweep preset adds
 * the Nmax values to queue. Engine presets without a lab label still appear, under their own name.
 */
import { PRESETS, type ExperimentConfig } from '../../core/experiment';

export interface LabPreset {
  label: string;
  config: ExperimentConfig;
  /** Set for a sweep: the Nmax values to train, one run each, same seed and budget. */
  sweepNmax?: number[];
}

const LABELLED: Record<string, LabPreset> = {
  classroom: { label: 'Classroom: ZeroTIR, Nmax 2', config: PRESETS.classroom },
  'no-tool': { label: 'No tool (Nmax 0)', config: PRESETS['no-tool'] },
  // The sweep trains one run per Nmax, so it uses the CPU-sized budget of the quick demo.
  sweep: { label: 'Nmax sweep', config: PRESETS.quick, sweepNmax: [0, 1, 2, 4] },
  // The ablation is a sweep too: Train queues its arms, those of docs/tasks.md's measured sweep.
  ablation: { label: 'Nmax ablation (sweep 0, 1, 2, 4, 8)', config: PRESETS.ablation, sweepNmax: [0, 1, 2, 4, 8] },
  quick: { label: 'Quick demo', config: PRESETS.quick },
  retool: { label: 'ReTool: cold start vs base', config: PRESETS.retool },
};

export const LAB_PRESETS: Record<string, LabPreset> = {
  ...LABELLED,
  ...Object.fromEntries(
    Object.entries(PRESETS)
      .filter(([name]) => !Object.hasOwn(LABELLED, name))
      .map(([name, config]) => [name, { label: name, config }]),
  ),
};

/**
 * The preset of that name, or undefined. An own property only: a name from a link or a file such as
 * "constructor" or "__proto__" would otherwise find Object.prototype's member and pass as a preset.
 */
export function labPreset(name: string): LabPreset | undefined {
  return Object.hasOwn(LAB_PRESETS, name) ? LAB_PRESETS[name] : undefined;
}

export const DEFAULT_LAB_PRESET = 'classroom';

export const DEFAULT_SWEEP_NMAX = [0, 1, 2, 4];
