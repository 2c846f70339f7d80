/**
 * The prompt an engine's model reads. The lab's tiny model learned the `Answer:` line and the tool
 * format from its corpus; a Hugging Face base model has not, so the export states both in words,
 * ahead of the lab's own `Q: ...\nA:` prompt.
 */
import type { ExperimentConfig } from '../experiment';
import { TOOL_FORMATS } from '../rollout/formats';
import type { ExportedProblem } from './exportedProblem';

export function toolInstruction(config: Pick<ExperimentConfig, 'format' | 'nmax'>): string {
  const finish = 'End your response with a last line `Answer: <integer>` and nothing after it.';
  if (config.nmax === 0) return `Answer the question. ${finish}`;
  const f = TOOL_FORMATS[config.format];
  const calls = config.nmax === 1 ? 'once' : `up to ${config.nmax} times`;
  return (
    `Answer the question. You may run Python ${calls}: write the code between ${f.codeOpen} and ${f.codeClose}, ` +
    `and its output appears between ${f.outputOpen.trim()} and ${f.outputClose.trim()}. ${finish}`
  );
}

/** The whole prompt text: the instruction, a blank line, then the lab's prompt. */
export function enginePrompt(problem: ExportedProblem, config: Pick<ExperimentConfig, 'format' | 'nmax'>): string {
  return `${toolInstruction(config)}\n\n${problem.labPrompt}`;
}
