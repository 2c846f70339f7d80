/**
 * The knob's trip of docs/architecture.md, held: of the files that handle Nmax from its field to the
 * episode, only those that show, define, use or report it name it, the rest carry the config whole;
 * and the generic pieces it also passes through (the number box, comlink's two ends, the rollout
 * loop) never learn what it is, so a new knob is written in core/experiment.ts, a line of
 * ui/state/knobs.ts, its export mapping (core/export/engineKnobs.ts, which test/exportBundle.test.ts
 * asks for) and where it is used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(__dirname, '..', 'src');

/** The files that handle the knob, in the order the trip crosses them; `names` where the file has a reason to say `nmax`. */
const TRIP: { file: string; names: boolean }[] = [
  { file: 'ui/panels/ExperimentPanel.tsx', names: false },
  { file: 'ui/state/labStore.ts', names: false },
  { file: 'core/experiment.ts', names: true }, // the definition, its bounds, the presets
  { file: 'ui/controller/runCommands.ts', names: true }, // the run's name in the list ("Nmax 2")
  { file: 'trainerWorker/labSession.ts', names: true }, // evaluate(): the sweep matrix's own Nmax list
  { file: 'core/rl/openRun.ts', names: false },
  { file: 'core/rl/trainer.ts', names: true }, // episodeConfig(config, config.nmax)
  { file: 'core/rollout/episode.ts', names: true }, // where a call is run or not
];

/** Generic code the value passes through on the way: it must not know what it carries. */
const CARRIERS = ['ui/panels/NumberField.tsx', 'ui/controller/trainerConnection.ts', 'trainerWorker/trainerApi.ts', 'core/rollout/rollout.ts'];

const source = (file: string) => readFileSync(join(SRC, file), 'utf8');
const namesNmax = (file: string) => /\bnmax\b/.test(source(file));

describe("a knob's trip (Nmax, docs/architecture.md)", () => {
  it('is named only where it is shown, defined, used or reported; every other file on the way carries the config whole', () => {
    expect(TRIP.filter((hop) => namesNmax(hop.file) !== hop.names).map((hop) => hop.file)).toEqual([]);
  });

  it('crosses at most 8 files that handle it (issue 27), and the architecture doc writes that trip, file for file and in order', () => {
    expect(TRIP.length).toBeLessThanOrEqual(8);
    const doc = readFileSync(join(__dirname, '..', 'docs/architecture.md'), 'utf8');
    const start = doc.indexOf("One knob's trip in the lab");
    const trip = doc.slice(start, doc.indexOf('That is ', start));
    const written = [...trip.matchAll(/`((?:ui|core|trainerWorker)\/[\w/]+\.tsx?)`/g)].map((m) => m[1]);
    expect(written).toEqual(TRIP.map((hop) => hop.file));
  });

  it('passes the number box, comlink and the rollout loop blind: none names Nmax, imports the experiment or types a config', () => {
    const seeing = CARRIERS.filter((file) => namesNmax(file) || /core\/experiment'|\.\/experiment'|ExperimentConfig/.test(source(file)));
    expect(seeing).toEqual([]);
    const doc = readFileSync(join(__dirname, '..', 'docs/architecture.md'), 'utf8');
    const paragraph = doc.slice(doc.indexOf("One knob's trip in the lab"), doc.indexOf('So a new knob is written'));
    for (const file of CARRIERS) expect(paragraph).toContain(`\`${file}\``);
  });
});
