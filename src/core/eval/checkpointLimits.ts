/**
 * What a checkpoint was trained to write, read from its meta: an RL checkpoint's run config, an SFT
 * checkpoint's format. Evaluation (the CLI and the lab) samples with these limits, and a run that
 * continues from a checkpoint keeps its tool format, since a model tuned on ReTool's tags never
 * closes a fence.
 */
import { TOOL_FORMATS, type ToolFormatName } from '../rollout/formats';
import { PRESETS } from '../experiment';
import { isObject } from '../jsonValue';

/** The tool format the checkpoint was tuned on, or null when it says none (a pretrained base). */
export function checkpointFormat(meta: Record<string, unknown>): ToolFormatName | null {
  const config = isObject(meta.config) ? meta.config : {};
  const sft = isObject(meta.sft) ? meta.sft : {};
  return [config.format, sft.format].find((f): f is ToolFormatName => typeof f === 'string' && Object.hasOwn(TOOL_FORMATS, f)) ?? null;
}

/** The episode limits the checkpoint was trained with, else the classroom preset's. */
export function checkpointEpisodeLimits(meta: Record<string, unknown>) {
  const classroom = PRESETS.classroom;
  const config = (isObject(meta.config) ? meta.config : {}) as Partial<typeof classroom>;
  return {
    format: checkpointFormat(meta) ?? classroom.format,
    maxResponseTokens: config.maxResponseTokens ?? classroom.maxResponseTokens,
    maxOutputChars: config.maxOutputChars ?? classroom.maxOutputChars,
    sandboxTimeoutMs: config.sandboxTimeoutMs ?? classroom.sandboxTimeoutMs,
  };
}
