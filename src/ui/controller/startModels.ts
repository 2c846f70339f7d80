/**
 * The start models' checkpoints on the page side (the cold start, the shipped base), fetched once
 * each from beside the base model and handed to the worker for startRun or an evaluation. A failed
 * fetch is forgotten, so the next use tries again.
 */
import type { CheckpointBlob } from '../../core/run/checkpointBlob';
import { startModelUrl, type StartFrom } from '../../core/archive/startFrom';

export class StartModels {
  private readonly loaded = new Map<StartFrom, Promise<CheckpointBlob>>();

  constructor(
    private readonly baseModelUrl: string,
    private readonly fetchModel: (url: string) => Promise<CheckpointBlob>,
  ) {}

  get(start: StartFrom): Promise<CheckpointBlob> {
    const cached = this.loaded.get(start);
    if (cached) return cached;
    const loading = this.fetchModel(startModelUrl(this.baseModelUrl, start));
    this.loaded.set(start, loading);
    loading.catch(() => this.loaded.delete(start));
    return loading;
  }
}
