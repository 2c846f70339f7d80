/**
 * Runs that last: every run's record, per-step metrics, latest samples and last checkpoint in
 * IndexedDB (through idb), written as the run goes so a reload finds it. Steps are one record each,
 * keyed [runId, step], so a step costs one small write however long the run is.
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { StepMetrics } from '../../core/metrics/stepMetrics';
import type { RolloutSample } from '../../core/rollout/rolloutSample';
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import type { PassAtOneResult } from '../../core/eval/evalReport';
import type { LabRun } from '../state/labRun';
import type { StartFrom } from '../../core/archive/startFrom';

/** A run's record without its metrics and samples (those are stored apart). */
export type StoredRun = Omit<LabRun, 'history' | 'columns' | 'samples' | 'revision' | 'startFrom' | 'passAtOne'> & {
  /** Absent in records written before these existed. */
  startFrom?: StartFrom;
  passAtOne?: PassAtOneResult | null;
};

export interface StoredCheckpoint {
  step: number;
  blob: CheckpointBlob;
}

export interface RunDatabase {
  /** Every run, newest first. */
  listRuns(): Promise<StoredRun[]>;
  putRun(run: StoredRun): Promise<void>;
  putStep(runId: string, metrics: StepMetrics): Promise<void>;
  /** The recorded steps of a run, in step order. */
  steps(runId: string): Promise<StepMetrics[]>;
  /** Forgets the steps at or after `fromStep` (a reset, or a continue from an earlier checkpoint). */
  deleteSteps(runId: string, fromStep: number): Promise<void>;
  putSamples(runId: string, samples: RolloutSample[]): Promise<void>;
  samples(runId: string): Promise<RolloutSample[]>;
  putCheckpoint(runId: string, checkpoint: StoredCheckpoint): Promise<void>;
  checkpoint(runId: string): Promise<StoredCheckpoint | null>;
  deleteCheckpoint(runId: string): Promise<void>;
  deleteRun(runId: string): Promise<void>;
}

interface LabSchema extends DBSchema {
  runs: { key: string; value: StoredRun };
  steps: { key: [string, number]; value: { runId: string; step: number; metrics: StepMetrics } };
  samples: { key: string; value: { runId: string; samples: RolloutSample[] } };
  checkpoints: { key: string; value: { runId: string; step: number; manifest: unknown; weights: Uint8Array } };
}

export const DATABASE_NAME = 'tir-lab';
/** The pretrained base model's slot in the checkpoint store. */
export const PRETRAINED_BASE_KEY = 'base:pretrained';
const DATABASE_VERSION = 1;

export async function openRunDatabase(name = DATABASE_NAME): Promise<RunDatabase> {
  const db = await openDB<LabSchema>(name, DATABASE_VERSION, {
    upgrade(database) {
      database.createObjectStore('runs', { keyPath: 'id' });
      database.createObjectStore('steps', { keyPath: ['runId', 'step'] });
      database.createObjectStore('samples', { keyPath: 'runId' });
      database.createObjectStore('checkpoints', { keyPath: 'runId' });
    },
  });
  return new IdbRunDatabase(db);
}

function stepRange(runId: string, fromStep = 0): IDBKeyRange {
  return IDBKeyRange.bound([runId, fromStep], [runId, Infinity]);
}

class IdbRunDatabase implements RunDatabase {
  constructor(private readonly db: IDBPDatabase<LabSchema>) {}

  async listRuns(): Promise<StoredRun[]> {
    const runs = await this.db.getAll('runs');
    return runs.sort((a, b) => b.createdAt - a.createdAt);
  }

  async putRun(run: StoredRun): Promise<void> {
    await this.db.put('runs', run);
  }

  async putStep(runId: string, metrics: StepMetrics): Promise<void> {
    await this.db.put('steps', { runId, step: metrics.step, metrics });
  }

  async steps(runId: string): Promise<StepMetrics[]> {
    const records = await this.db.getAll('steps', stepRange(runId));
    return records.map((r) => r.metrics);
  }

  async deleteSteps(runId: string, fromStep: number): Promise<void> {
    await this.db.delete('steps', stepRange(runId, fromStep));
  }

  async putSamples(runId: string, samples: RolloutSample[]): Promise<void> {
    await this.db.put('samples', { runId, samples });
  }

  async samples(runId: string): Promise<RolloutSample[]> {
    return (await this.db.get('samples', runId))?.samples ?? [];
  }

  async putCheckpoint(runId: string, { step, blob }: StoredCheckpoint): Promise<void> {
    await this.db.put('checkpoints', { runId, step, manifest: blob.manifest, weights: blob.weights });
  }

  async checkpoint(runId: string): Promise<StoredCheckpoint | null> {
    const record = await this.db.get('checkpoints', runId);
    return record ? { step: record.step, blob: { manifest: record.manifest, weights: record.weights } } : null;
  }

  async deleteCheckpoint(runId: string): Promise<void> {
    await this.db.delete('checkpoints', runId);
  }

  async deleteRun(runId: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'steps', 'samples', 'checkpoints'], 'readwrite');
    await Promise.all([
      tx.objectStore('runs').delete(runId),
      tx.objectStore('steps').delete(stepRange(runId)),
      tx.objectStore('samples').delete(runId),
      tx.objectStore('checkpoints').delete(runId),
      tx.done,
    ]);
  }
}
