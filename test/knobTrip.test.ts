/**
 * The knob's trip of docs/architecture.md, held: of the files Nmax crosses from its field to the
 * episode, only those that show, define, use or report it name it; the rest carry the config whole,
 * so a new knob is written in core/experiment.ts, a line of ui/state/knobs.ts, its export mapping
 * (core/export/engineKnobs.ts, which test/exportBundle.test.ts asks for) and where it is used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'src');

/** In the order the trip crosses them; `names` where the file has a reason to say `nmax`. */
const TRIP: { file: string; names: boolean }[] = [
  { file: 'ui/state/knobs.ts', names: true }, // where the field shows
  { file: 'ui/panels/ExperimentPanel.tsx', names: false },
  { file: 'ui/panels/NumberField.tsx', names: false },
  { file: 'ui/state/labStore.ts', names: false },
  { file: 'ui/controller/runCommands.ts', names: true }, // the run's name in the list ("Nmax 2")
  { file: 'ui/controller/validKnobs.ts', names: false },
  { file: 'core/experiment.ts', names: true }, // the definition, its bounds, the presets
  { file: 'ui/state/labRun.ts', names: false },
  { file: 'ui/controller/runLoader.ts', names: false },
  { file: 'ui/controller/trainerConnection.ts', names: false },
  { file: 'trainerWorker/trainerApi.ts', names: false },
  { file: 'trainerWorker/labSession.ts', names: true }, // evaluate(): the sweep matrix's own Nmax list
  { file: 'core/rl/openRun.ts', names: false },
  { file: 'core/rl/trainer.ts', names: true }, // episodeConfig(config, config.nmax)
  { file: 'core/rollout/rollout.ts', names: false },
  { file: 'core/rollout/episode.ts', names: true }, // where a call is run or not
];

const namesNmax = (file: string) => /\bnmax\b/.test(readFileSync(join(SRC, file), 'utf8'));

describe("a knob's trip (Nmax, docs/architecture.md)", () => {
  it('is named only where it is shown, defined, used or reported; every other file on the way carries the config whole', () => {
    expect(TRIP.filter((hop) => namesNmax(hop.file) !== hop.names).map((hop) => hop.file)).toEqual([]);
  });

  it('is the trip the architecture doc writes, file for file and in order', () => {
    const doc = readFileSync(join(__dirname, '..', 'docs/architecture.md'), 'utf8');
    const start = doc.indexOf("One knob's trip in the lab");
    const trip = doc.slice(start, doc.indexOf('That is ', start));
    const written = [...trip.matchAll(/`((?:ui|core|trainerWorker)\/[\w/]+\.tsx?)`/g)].map((m) => m[1]);
    expect(written).toEqual(TRIP.map((hop) => hop.file));
  });
});
