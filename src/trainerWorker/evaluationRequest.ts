/**
 * What the lab's held-out evaluation is asked: the settings of `npm run eval` (inference Nmax
 * values, k samples per problem, temperature, top-p, seed; core/eval/evalReport.ts) with the
 * checkpoint, their defaults and bounds. No tfjs here: the evaluation panel checks its fields with
 * the same function the worker checks the request with.
 */
import type { PassAtOneSettings } from '../core/eval/evalReport';
import { nmaxListError } from '../core/experiment';
import type { CheckpointBlob } from '../core/run/checkpointBlob';

export interface PassAtOneRequest extends PassAtOneSettings {
  checkpoint: CheckpointBlob;
  /** Names the model in the report (the CLI writes the checkpoint's path there). */
  label: string;
}

/** ReTool's test protocol: temperature 1, top-p 0.7; k 8 and the Nmax values of ZeroTIR's study. */
export const DEFAULT_PASS_AT_ONE: PassAtOneSettings = { nmaxList: [0, 1, 2, 4], k: 8, temperature: 1, topP: 0.7, seed: 0 };

/** The same bounds as the CLI's flags. */
export const MAX_K = 256;
const MAX_TEMPERATURE = 5;
const MAX_SEED = 2 ** 31 - 1;

/** What is wrong with the settings, one message per field (empty when they can run). */
export function passAtOneSettingsErrors(settings: PassAtOneSettings): Partial<Record<keyof PassAtOneSettings, string>> {
  const errors: Partial<Record<keyof PassAtOneSettings, string>> = {};
  const { nmaxList, k, temperature, topP, seed } = settings ?? ({} as PassAtOneSettings);
  const nmaxError = nmaxListError(nmaxList);
  if (nmaxError) errors.nmaxList = nmaxError;
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) errors.k = `k must be a whole number from 1 to ${MAX_K}`;
  if (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= MAX_TEMPERATURE)) errors.temperature = `temperature must be a number from 0 to ${MAX_TEMPERATURE}`;
  if (typeof topP !== 'number' || !(topP > 0 && topP <= 1)) errors.topP = 'top-p must be a number above 0 and at most 1';
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) errors.seed = `seed must be a whole number from 0 to ${MAX_SEED}`;
  return errors;
}

/** "0, 1, 2,4" as numbers; a blank or non-numeric item becomes NaN, which the check refuses. */
export function parseNmaxList(text: string): number[] {
  if (text.trim() === '') return [];
  return text.split(',').map((item) => (item.trim() === '' ? Number.NaN : Number(item)));
}
