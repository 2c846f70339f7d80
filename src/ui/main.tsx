/**
 * The lab's entry: claim the lab for this tab (labTab.ts; another tab may have it), read the URL
 * into the store, open the run database, start the trainer worker and render. The base model is
 * fetched by the worker from the app's own origin.
 */
import { StrictMode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { App } from './App';
import { LabContext } from './LabContext';
import { claimLabTab } from './labTab';
import { OtherTabScreen } from './panels/OtherTabScreen';
import { PanelBoundary } from './panels/PanelBoundary';
import { LabController } from './controller/labController';
import { connectTrainerWorker } from './controller/trainerConnection';
import { openRunDatabase, type RunDatabase } from './db/runDatabase';
import { createLabStore, notify } from './state/labStore';
import { syncUrlWithStore } from './state/urlSync';
import { parseLabUrl, urlProblemsNotice } from './state/urlState';
import './styles.css';

async function boot(root: Root): Promise<void> {
  const tab = await claimLabTab();
  if (!tab) {
    root.render(<OtherTabScreen reason="elsewhere" />);
    return;
  }
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
  root.render(
    <StrictMode>
      <LabContext.Provider value={{ store, controller }}>
        <PanelBoundary part="the lab">
          <App />
        </PanelBoundary>
      </LabContext.Provider>
    </StrictMode>,
  );
  tab.onLeaveAsked(async () => {
    try {
      await controller.leave();
    } finally {
      root.render(<OtherTabScreen reason="moved" />);
    }
  });
  await controller.start(parsed.autostart, { runId: parsed.runId, urlNamesSettings: parsed.namesSettings });
}

const element = document.getElementById('root');
if (element) void boot(createRoot(element));
