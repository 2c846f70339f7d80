/**
 * Where RL starts: the base model (ZeroTIR) or the cold-start model (ReTool: the base fine-tuned on
 * code-augmented traces, public/models/coldstart). Each model has read one tool format only, so
 * the format knob must match it: a model that writes `<code>` tags under the fence format (or the
 * other way round) never has a block recognised, and so never runs code.
 */
import { EXPERIMENT_PROPERTIES, type ToolFormatName } from '../experiment';

export type StartFrom = 'base' | 'coldstart';

export const START_FROM_CHOICES: StartFrom[] = ['base', 'coldstart'];

export interface StartModel {
  label: string;
  /** The format the model was trained to write. */
  format: ToolFormatName;
  /** Its folder beside the base model's (public/models/<folder>/). */
  folder: string;
  why: string;
}

export const START_MODELS: Record<StartFrom, StartModel> = {
  base: {
    label: 'Base model (ZeroTIR)',
    format: 'zerotir',
    folder: 'base',
    why: 'the base model has only read ```python fences and ```output blocks',
  },
  coldstart: {
    label: 'Cold-start model (ReTool)',
    format: 'retool',
    folder: 'coldstart',
    why: 'the cold-start model was fine-tuned on traces in <code> and <interpreter> tags',
  },
};

/** The format choices' labels (EXPERIMENT_PROPERTIES). */
export const FORMAT_LABELS = Object.fromEntries(EXPERIMENT_PROPERTIES.flatMap((p) => (p.key === 'format' && p.kind === 'choice' ? p.choices : []))) as Record<ToolFormatName, string>;

/** Why the format does not fit the start model, or null when it does. */
export function startFormatError(start: StartFrom, format: ToolFormatName): string | null {
  const model = START_MODELS[start];
  if (model === undefined || format === model.format) return null;
  return `tool format must be ${FORMAT_LABELS[model.format]} for this start: ${model.why}`;
}

/** The start a format implies (a run recorded before the choice existed, an imported checkpoint). */
export function startForFormat(format: ToolFormatName): StartFrom {
  return format === 'retool' ? 'coldstart' : 'base';
}

export function isStartFrom(value: unknown): value is StartFrom {
  return (START_FROM_CHOICES as unknown[]).includes(value);
}

/** The start model's URL, beside the base model's: '/models/base/' -> '/models/coldstart/'. */
export function startModelUrl(baseModelUrl: string, start: StartFrom): string {
  return baseModelUrl.replace(/[^/]+\/?$/, `${START_MODELS[start].folder}/`);
}
