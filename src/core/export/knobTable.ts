/**
 * The knob -> key mapping written out for people: the table of docs/scale-out.md (for the
 * classroom preset's values) and, in an exported bundle's README, the knobs its engine does not
 * reproduce exactly, with why.
 */
import type { ExperimentConfig } from '../experiment';
import { KNOB_MAPPINGS, type KnobMapping } from './engineKnobs';
import { ENGINE_NAMES, ENGINES, type EngineName } from './engineVersions';

const argsCell = (args: string[]) => (args.length === 0 ? '—' : args.map((arg) => `\`${arg}\``).join('<br>'));

function fitCell({ fit }: KnobMapping): string {
  return fit.verl === fit.openrlhf ? fit.verl : ENGINES.map((engine) => `${ENGINE_NAMES[engine]} ${fit[engine]}`).join(', ');
}

/** One markdown row per knob: the verl keys and OpenRLHF flags for `config`, the fit and the note. */
export function knobTableRows(config: ExperimentConfig): string[] {
  return KNOB_MAPPINGS.map((m) => `| \`${m.knob}\` | ${argsCell(m.verl(config))} | ${argsCell(m.openrlhf(config))} | ${fitCell(m)} | ${m.note} |`);
}

/** The knobs that `engine` reproduces only approximately or not at all, a line each with the reason. */
export function inexactKnobLines(engine: EngineName): string[] {
  return KNOB_MAPPINGS.filter((m) => m.fit[engine] !== 'exact').map((m) => `- ${m.knob} (${m.fit[engine]} in ${ENGINE_NAMES[engine]}): ${m.note}`);
}
