/**
 * Keeps the URL hash equal to the store's serialisable part and the shown run's id (replaceState,
 * so knobs do not fill the history), and applies a hash edited by hand. Query parameters are
 * folded into the hash once.
 */
import type { LabStore } from './labStore';
import { parseLabUrl, serialiseLabHash, type UrlState } from './urlState';

function urlPart(state: UrlState): UrlState {
  return {
    preset: state.preset,
    config: state.config,
    backend: state.backend,
    presenter: state.presenter,
    hidden: state.hidden,
    sweepNmax: state.sweepNmax,
    startFrom: state.startFrom,
  };
}

export function syncUrlWithStore(store: LabStore, onBackendChange: (backend: UrlState['backend']) => void): () => void {
  let written = '';
  const write = () => {
    const hash = serialiseLabHash(urlPart(store.getState()), store.getState().selectedRunId);
    if (hash === written) return;
    written = hash;
    history.replaceState(null, '', `${location.pathname}#${hash}`);
  };
  write();
  const unsubscribe = store.subscribe(write);
  const onHashChange = () => {
    if (location.hash.replace(/^#/, '') === written) return;
    const { state } = parseLabUrl('', location.hash);
    const backendChanged = state.backend !== store.getState().backend;
    store.setState({ ...urlPart(state), backend: store.getState().backend });
    if (backendChanged) onBackendChange(state.backend);
  };
  window.addEventListener('hashchange', onHashChange);
  return () => {
    unsubscribe();
    window.removeEventListener('hashchange', onHashChange);
  };
}
