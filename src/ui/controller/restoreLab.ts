/**
 * What a page load brings back from IndexedDB into the store: the stored runs (the ones that fail
 * their checks listed apart, with a notice each), the base model pretrained here, the newest sweep;
 * and which run is shown. The run shown is the one the URL names; else, for a URL that sets no
 * experiment, the newest; a URL that sets one shows no stored run (its settings are the next run's).
 * A shown run's settings go into the knobs, so the settings panel and the presenter caption describe
 * the run on the charts.
 */
import { PRETRAINED_BASE_KEY } from '../db/runDatabase';
import { notify, type LabStore } from '../state/labStore';
import { latestSweep } from './nmaxSweep';
import type { RunWrites } from './runWrites';
import { showRun } from './shownRun';
import type { StorePersistence } from './storePersistence';
import { restoreRuns } from './storedRuns';

/** What the URL says about the run to show. */
export interface UrlRun {
  runId: string | null;
  /** The URL sets an experiment: its settings are the next run's. */
  urlNamesSettings: boolean;
}

export async function restoreLab(store: LabStore, writes: RunWrites, persistence: StorePersistence, url: UrlRun): Promise<void> {
  const db = writes.db;
  if (!db) return;
  try {
    const { runs, broken } = await restoreRuns(db);
    const pretrained = await db.checkpoint(PRETRAINED_BASE_KEY);
    const named = runs.find((r) => r.id === url.runId);
    const shown = named ?? (url.urlNamesSettings ? undefined : runs[0]);
    persistence.adopt(() =>
      store.setState({
        runs: Object.fromEntries(runs.map((r) => [r.id, r])),
        runOrder: runs.map((r) => r.id),
        brokenRuns: broken,
        selectedRunId: null,
        pretrainedBase: pretrained ? { steps: pretrained.step, checkpoint: pretrained.blob } : null,
        sweep: latestSweep(runs),
      }),
    );
    for (const run of broken) notify(store, 'error', `the stored run "${run.name}" cannot be shown: ${run.reason}`);
    if (url.runId !== null && !named) notify(store, 'info', `URL: no stored run ${url.runId} in this browser (its settings are in the knobs)`);
    if (shown) showRun(store, shown.id);
  } catch (error) {
    writes.failure(error);
  }
}
