/**
 * Between the lab's runs and their stored form: what a run's record holds, and the runs a reload
 * brings back (a run that was training when the page closed comes back paused).
 */
import { withSavedConfigDefaults } from '../../core/experiment';
import { makeRun, type LabRun } from '../state/labRun';
import type { RunDatabase, StoredRun } from '../persistence/runDatabase';

export function storedRun(run: LabRun): StoredRun {
  return {
    id: run.id,
    name: run.name,
    preset: run.preset,
    config: run.config,
    status: run.status,
    step: run.step,
    createdAt: run.createdAt,
    checkpointStep: run.checkpointStep,
    sweepId: run.sweepId,
    evaluation: run.evaluation,
    startFrom: run.startFrom,
    passAtOne: run.passAtOne,
  };
}

/** Every stored run with its metrics and samples, newest first. */
export async function restoreRuns(db: RunDatabase): Promise<LabRun[]> {
  const records = await db.listRuns();
  return Promise.all(
    records.map(async (record) => {
      const [history, samples] = await Promise.all([db.steps(record.id), db.samples(record.id)]);
      const run = makeRun({
        ...record,
        config: withSavedConfigDefaults(record.config),
        history,
        samples,
        status: record.status === 'training' ? 'paused' : record.status,
      });
      return { ...run, step: history.length > 0 ? run.step : record.step, evaluation: record.evaluation, passAtOne: record.passAtOne ?? null };
    }),
  );
}
