/**
 * The lab's entry: read the URL into the store, open the run database, start the trainer worker
 * and render. The base model is fetched by the worker from the app's own origin.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { LabContext } from './LabContext';
import { PanelBoundary } from './panels/PanelBoundary';
import { LabController } from './controller/labController';
import { connectTrainerWorker } from './controller/trainerConnection';
import { openRunDatabase, type RunDatabase } from './db/runDatabase';
import { createLabStore, notify } from './state/labStore';
import { syncUrlWithStore } from './state/urlSync';
import { parseLabUrl, urlProblemsNotice } from './state/urlState';
import './styles.css';

async function boot(root: HTMLElement): Promise<void> {
  const parsed = parseLabUrl(location.search, location.hash);
  const store = createLabStore(parsed.state);
  const linkProblems = urlProblemsNotice(parsed.problems);
  if (linkProblems !== null) notify(store, 'info', linkProblems);
  let db: RunDatabase | null = null;
  try {
    db = await openRunDatabase();
  } catch (error) {
    notify(store, 'error', `runs will not be kept: IndexedDB is unavailable (${(error as Error).message})`);
  }
  const controller = new LabController({
    store,
    connect: connectTrainerWorker,
    db,
    baseModelUrl: new URL(`${import.meta.env.BASE_URL}models/base/`, location.href).href,
  });
  syncUrlWithStore(store, (backend) => void controller.switchBackend(backend));
  createRoot(root).render(
    <StrictMode>
      <LabContext.Provider value={{ store, controller }}>
        <PanelBoundary part="the lab">
          <App />
        </PanelBoundary>
      </LabContext.Provider>
    </StrictMode>,
  );
  await controller.start(parsed.autostart, { runId: parsed.runId, urlNamesSettings: parsed.namesSettings });
}

const root = document.getElementById('root');
if (root) void boot(root);
