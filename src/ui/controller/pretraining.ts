/** Pretraining in the lab: a base model made in the worker, from which new runs can then start instead of the shipped one. */
import type { LabStore } from '../state/labStore';
import type { WorkerSession } from './workerSession';

/** Pretrains a base model in the worker (its loss curve in the store) and makes it the one new runs start from. */
export async function pretrainBase(session: WorkerSession, store: LabStore, options: { steps: number; seed: number; toolPrior: number }): Promise<void> {
  await session.command('Pretraining', async (api) => {
    await session.stopRunning();
    store.setState((s) => ({ pretrainLoss: { step: [], loss: [], revision: s.pretrainLoss.revision + 1 } }));
    const checkpoint = await api.pretrain(options);
    // Whether the worker kept the loaded run through pretraining is its business: reload it from its checkpoint.
    store.setState({ pretrainedBase: { steps: options.steps, checkpoint }, baseModel: 'pretrained', loadedRunId: null });
  });
}
