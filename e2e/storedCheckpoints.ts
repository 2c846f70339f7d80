/**
 * Every checkpoint in the lab's IndexedDB, read from the page. The run list's "saved @N" shows when
 * the worker's answer reaches the store, before IndexedDB has it, so a test that reloads on a saved
 * step waits for this instead.
 */
import type { Page } from '@playwright/test';

export interface StoredCheckpoint {
  runId: string;
  step: number;
  formatVersion: number;
}

export function storedCheckpoints(page: Page): Promise<StoredCheckpoint[]> {
  return page.evaluate(
    () =>
      new Promise<StoredCheckpoint[]>((resolve, reject) => {
        const open = indexedDB.open('tir-lab');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('checkpoints').objectStore('checkpoints').getAll();
          all.onsuccess = () => {
            resolve(
              all.result.map((r: { runId: string; step: number; manifest: { formatVersion: number } }) => ({
                runId: r.runId,
                step: r.step,
                formatVersion: r.manifest.formatVersion,
              })),
            );
            db.close();
          };
          all.onerror = () => reject(all.error);
        };
      }),
  );
}
