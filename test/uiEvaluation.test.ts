/**
 * The lab's start choice and evaluation panel, page side, against the fake trainer and a fake
 * IndexedDB: the start model is in the URL, refuses a format that does not fit it, reaches
 * startRun as the cold-start checkpoint (fetched once) and the run's record and export; a pass@1
 * evaluation sends the run's checkpoint, keeps the report with the run through a reload, keeps a
 * start model's in the page, refuses bad settings, and a cancel keeps the previous result.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import type { CheckpointBlob } from '../src/core/run/checkpointBlob';
import { evaluationOptions, parseSourceKey, resultOf, sourceKey } from '../src/ui/controller/evaluationJob';
import { LabController } from '../src/ui/controller/labController';
import { openRunDatabase } from '../src/ui/db/runDatabase';
import { runExport } from '../src/core/archive/runExport';
import { chooseStart, createLabStore, setKnob } from '../src/ui/state/labStore';
import { LAB_PRESETS } from '../src/ui/state/presets';
import { metricsRows } from '../src/ui/state/runColumns';
import { startFormatError, startModelUrl } from '../src/core/archive/startFrom';
import { copyConfig, defaultUrlState, parseLabUrl, serialiseLabHash } from '../src/ui/state/urlState';
import { fakeConnector } from './uiFakeTrainer';

const COLD_START: CheckpointBlob = { manifest: { format: 'tir-lab-checkpoint', meta: { kind: 'sft', sft: { format: 'retool' } } }, weights: Uint8Array.from([7]) };
const SETTINGS = { nmaxList: [0, 2], k: 2, temperature: 1, topP: 0.7, seed: 0 };

let dbCount = 0;

async function lab(dbName = `ui-evaluation-${++dbCount}`) {
  const db = await openRunDatabase(dbName);
  const initial = defaultUrlState();
  initial.preset = 'quick';
  initial.config = { ...copyConfig(LAB_PRESETS.quick.config), steps: 2 };
  const store = createLabStore(initial);
  const fake = fakeConnector();
  const fetched: string[] = [];
  const fetchModel = async (url: string) => {
    fetched.push(url);
    if (url !== '/models/coldstart/') throw new Error(`no model at ${url}`);
    return COLD_START;
  };
  let clock = 1000;
  const controller = new LabController({ store, connect: fake.connect, db, baseModelUrl: '/models/base/', now: () => clock++, fetchModel });
  await controller.start(false);
  return { db, store, fake, controller, fetched };
}

describe('start model', () => {
  it('is in the URL: start=coldstart sets the format the model writes unless the link names one', () => {
    const cold = parseLabUrl('?preset=quick&start=coldstart', '');
    expect(cold.state.startFrom).toBe('coldstart');
    expect(cold.state.config.format).toBe('retool');
    expect(serialiseLabHash(cold.state)).toContain('start=coldstart');
    expect(parseLabUrl('', `#${serialiseLabHash(cold.state)}`).state).toEqual(cold.state);
    expect(parseLabUrl('', '#start=coldstart&format=zerotir').state.config.format).toBe('zerotir');
    expect(serialiseLabHash(defaultUrlState())).not.toContain('start=');
    expect(parseLabUrl('?start=sft', '').problems).toEqual(["unknown start 'sft' (kept base)"]);
  });

  it('says why a format does not fit, and finds the model beside the base', () => {
    expect(startFormatError('coldstart', 'retool')).toBeNull();
    expect(startFormatError('base', 'zerotir')).toBeNull();
    expect(startFormatError('coldstart', 'zerotir')).toBe(
      'tool format must be ReTool (<code>) for this start: the cold-start model was fine-tuned on traces in <code> and <interpreter> tags',
    );
    expect(startFormatError('base', 'retool')).toContain('ZeroTIR (```python)');
    expect(startModelUrl('/models/base/', 'coldstart')).toBe('/models/coldstart/');
    expect(startModelUrl('https://lab.example/tir/models/base/', 'coldstart')).toBe('https://lab.example/tir/models/coldstart/');
  });

  it('starts a run from the fetched cold-start checkpoint at step 0 and records the start with the run', async () => {
    const { db, store, fake, controller, fetched } = await lab();
    chooseStart(store, 'coldstart');
    expect(store.getState().config.format).toBe('retool');
    await controller.step();
    const startRun = fake.trainers[0].calls.find((c) => c.method === 'startRun')!;
    expect(startRun.args[2]).toEqual({ checkpoint: COLD_START, step: 0 });
    const runId = store.getState().runOrder[0];
    const run = store.getState().runs[runId];
    expect(run.startFrom).toBe('coldstart');
    expect(runExport({ ...run, metrics: metricsRows(run.columns) }).startFrom).toBe('coldstart');
    await controller.flush();
    expect((await db.listRuns())[0].startFrom).toBe('coldstart');

    // A fork continues from the run's checkpoint, with the cold start (the run's start model) as its KL reference.
    await controller.fork();
    const forked = fake.trainers[0].calls.at(-1)!;
    expect(forked.method).toBe('startRun');
    expect(forked.args[2]).toMatchObject({ step: 1, reference: COLD_START });

    // A second run from the cold start reuses the fetched checkpoint; a reset back to the base starts from the base.
    controller.newRunFromKnobs();
    await controller.step();
    expect(fetched).toEqual(['/models/coldstart/']);
    chooseStart(store, 'base');
    await controller.reset();
    const reset = fake.trainers[0].calls.at(-1)!;
    expect(reset.method).toBe('startRun');
    expect(reset.args[2]).toBeUndefined();
    expect(store.getState().runs[store.getState().selectedRunId!].startFrom).toBe('base');
  });

  it('refuses to train when the format does not fit the start, and selecting a run brings its start back', async () => {
    const { store, fake, controller } = await lab();
    chooseStart(store, 'coldstart');
    await controller.step();
    const coldRun = store.getState().runOrder[0];
    chooseStart(store, 'base');
    setKnob(store, 'format', 'retool');
    controller.newRunFromKnobs();
    await controller.step();
    expect(store.getState().runOrder).toEqual([coldRun]);
    expect(store.getState().notices.at(-1)?.text).toContain('fix the marked fields first: tool format must be ZeroTIR');
    expect(fake.trainers[0].methods().filter((m) => m === 'startRun')).toHaveLength(1);
    controller.selectRun(coldRun);
    expect(store.getState().startFrom).toBe('coldstart');
    expect(startFormatError(store.getState().startFrom, store.getState().config.format)).toBeNull();
  });
});

describe('pass@1 evaluation from the lab', () => {
  it('evaluates a run\'s checkpoint, keeps the report with the run, and a reload brings it back', async () => {
    const dbName = `ui-evaluation-reload-${++dbCount}`;
    const first = await lab(dbName);
    await first.controller.train();
    const runId = first.store.getState().runOrder[0];
    const run = first.store.getState().runs[runId];
    expect(evaluationOptions(first.store.getState()).map((o) => o.key)).toEqual([`run:${runId}`, 'start:base', 'start:coldstart']);

    await first.controller.evaluatePassAtOne({ kind: 'run', runId }, SETTINGS);
    await first.controller.flush();
    const call = first.fake.trainers[0].calls.find((c) => c.method === 'evaluatePassAtOne')!;
    // The loaded run's weights, saved now (the fake's checkpoint holds its step as its one byte).
    expect(call.args[0]).toMatchObject({ ...SETTINGS, label: `${run.name} @ step 2` });
    expect((call.args[0] as { checkpoint: CheckpointBlob }).checkpoint.weights).toEqual(Uint8Array.from([2]));
    const result = first.store.getState().runs[runId].passAtOne!;
    expect(result.step).toBe(2);
    expect(result.report.blocks.map((b) => [b.nmax, b['pass@1']])).toEqual([[0, 0.2], [2, 0.22]]);
    expect(result.report.checkpoint).toBe(`${run.name} @ step 2`);
    expect(first.store.getState().passAtOne.running).toBeNull();
    expect(first.store.getState().busy).toBeNull();

    const second = await lab(dbName);
    const restored = second.store.getState().runs[runId];
    expect(restored.passAtOne).toEqual(result);
    expect(runExport({ ...restored, metrics: metricsRows(restored.columns) }).passAtOne).toEqual(result);
    expect(resultOf(second.store.getState(), parseSourceKey(sourceKey({ kind: 'run', runId })))).toEqual(result);
  });

  it('evaluates a start model, refuses bad settings, and a cancel keeps the previous result', async () => {
    const { store, fake, controller } = await lab();
    await controller.evaluatePassAtOne({ kind: 'start', start: 'coldstart' }, { ...SETTINGS, k: 1 });
    const cold = store.getState().passAtOne.startModels.coldstart!;
    expect(cold.step).toBe(0);
    expect(cold.report.checkpoint).toBe('Cold-start model (ReTool): models/coldstart @ step 0');
    // The cold-start checkpoint's first byte comes back as selfCorrections in the fake's report.
    expect(cold.report.blocks[0].selfCorrections).toBe(7);

    await controller.evaluatePassAtOne({ kind: 'start', start: 'coldstart' }, { ...SETTINGS, nmaxList: [], topP: 0 });
    expect(store.getState().notices.at(-1)?.text).toBe('fix the evaluation settings first: give at least one Nmax value; top-p must be a number above 0 and at most 1');
    expect(fake.trainers[0].methods().filter((m) => m === 'evaluatePassAtOne')).toHaveLength(1);

    const evaluation = controller.evaluatePassAtOne({ kind: 'start', start: 'coldstart' }, { ...SETTINGS, nmaxList: [0, 1, 2, 3, 4, 5] });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(store.getState().passAtOne.running).toEqual({ source: 'start:coldstart', cancelling: false });
    await controller.cancelEvaluation();
    await evaluation;
    expect(store.getState().notices.at(-1)?.text).toBe('evaluation cancelled');
    expect(store.getState().passAtOne.startModels.coldstart).toBe(cold);
    expect(store.getState().passAtOne.running).toBeNull();

    await controller.evaluatePassAtOne({ kind: 'run', runId: 'no-such-run' }, SETTINGS);
    expect(store.getState().notices.at(-1)?.text).toBe('that run is gone');
  });
});
