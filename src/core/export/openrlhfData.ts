/**
 * OpenRLHF's prompt data: JSONL read with --data.input_key prompt --data.label_key label (0.11.0).
 * The prompt is raw text (no chat template, as ZeroTIR trained base models); the label is the
 * answer, which agent_func.py hands to the reward. The other keys are for people and are ignored.
 */
import type { ExperimentConfig } from '../experiment';
import { enginePrompt } from './enginePrompt';
import type { ExportSplits } from './exportSplits';

export const OPENRLHF_INPUT_KEY = 'prompt';
export const OPENRLHF_LABEL_KEY = 'label';

export interface OpenRlhfRow {
  prompt: string;
  label: string;
  split: string;
  index: number;
  family: string;
  tier: string;
}

export function openrlhfRows(splits: ExportSplits, split: 'train' | 'test', config: Pick<ExperimentConfig, 'format' | 'nmax'>): OpenRlhfRow[] {
  return splits[split].map((p, index) => ({ prompt: enginePrompt(p, config), label: String(p.answer), split, index, family: p.family, tier: p.tier }));
}

export function jsonLines(rows: object[]): string {
  return rows.map((r) => `${JSON.stringify(r)}\n`).join('');
}
