/**
 * Between the lab's runs and their stored form: what a run's record holds, and the runs a reload
 * brings back (a run that was training when the page closed comes back paused). Every stored run is
 * checked as an imported one is (runChecks.ts): one that a bad import or an older lab left malformed
 * comes back as broken, listed with the reason and deletable, and is never drawn.
 */
import { makeRun, type LabRun } from '../state/labRun';
import type { BrokenRun } from '../state/labStore';
import { isStartFrom } from '../../core/archive/startFrom';
import type { RunDatabase, StoredRun } from '../db/runDatabase';
import { checkConfig, checkEvaluation, checkMetricsList, checkPassAtOne, checkRunName, checkSamples, count, finite, record, RUN_LIMITS, RunDataError, text } from '../../core/archive/runChecks';
import type { RunStatus } from '../../trainerWorker/protocol';

const STATUSES: RunStatus[] = ['idle', 'training', 'paused', 'finished', 'error'];

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

export interface RestoredRuns {
  /** Newest first. */
  runs: LabRun[];
  broken: BrokenRun[];
}

/** Every stored run with its metrics and samples, newest first; the ones that do not pass the checks apart. */
export async function restoreRuns(db: RunDatabase): Promise<RestoredRuns> {
  const records = await db.listRuns();
  const restored = await Promise.all(
    records.map(async (stored) => {
      const [history, samples] = await Promise.all([db.steps(stored.id), db.samples(stored.id)]);
      try {
        return { run: checkedRun(stored, history, samples) };
      } catch (error) {
        if (!(error instanceof RunDataError)) throw error;
        const name = typeof stored.name === 'string' ? stored.name.slice(0, RUN_LIMITS.name) : String(stored.id);
        return { broken: { id: stored.id, name, reason: error.message } };
      }
    }),
  );
  return { runs: restored.flatMap((r) => r.run ?? []), broken: restored.flatMap((r) => r.broken ?? []) };
}

/** A stored run as the lab holds it, every field checked; throws a RunDataError naming the first bad one. */
function checkedRun(stored: StoredRun, storedHistory: unknown, storedSamples: unknown): LabRun {
  const fields = record(stored, 'its record');
  const id = text(fields.id, 'its id', RUN_LIMITS.name);
  // Runs are kept in objects keyed by id: an id such as "constructor" would find Object.prototype's member.
  if (id in Object.prototype) throw new RunDataError(`its id ${JSON.stringify(id)} is a name every JavaScript object has`);
  const status = fields.status;
  if (!STATUSES.includes(status as RunStatus)) throw new RunDataError(`its status is not one of ${STATUSES.join(', ')}`);
  const config = checkConfig(fields.config, 'its config');
  const startFrom = fields.startFrom;
  if (startFrom !== undefined && !isStartFrom(startFrom)) throw new RunDataError('its start model is not one this lab has');
  const history = checkMetricsList(storedHistory, 'its steps');
  const run = makeRun({
    id,
    name: checkRunName(fields.name, 'its name', RUN_LIMITS.text),
    preset: text(fields.preset, 'its preset', RUN_LIMITS.name),
    config,
    createdAt: finite(fields.createdAt, 'its creation time'),
    sweepId: fields.sweepId === null || fields.sweepId === undefined ? null : text(fields.sweepId, 'its sweep id', RUN_LIMITS.name),
    history,
    samples: checkSamples(storedSamples, 'its samples'),
    status: status === 'training' ? 'paused' : (status as RunStatus),
    checkpointStep: fields.checkpointStep === null || fields.checkpointStep === undefined ? null : count(fields.checkpointStep, 'its checkpoint step'),
    startFrom,
  });
  return {
    ...run,
    step: history.length > 0 ? run.step : count(fields.step, 'its step'),
    evaluation: checkEvaluation(fields.evaluation, 'its evaluation'),
    passAtOne: checkPassAtOne(fields.passAtOne, 'its pass@1 evaluation'),
  };
}
