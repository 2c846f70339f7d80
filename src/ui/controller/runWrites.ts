/**
 * The lab's writes to IndexedDB: issued without waiting (a training step must not wait for the
 * disk), each failure turned into one notice (after the first, the lab knows runs are not being
 * saved), and a flush that resolves once every write issued so far has landed.
 */
import type { RunDatabase } from '../db/runDatabase';
import { notify, type LabStore } from '../state/labStore';

export class RunWrites {
  private readonly pending = new Set<Promise<void>>();
  private failed = false;

  constructor(
    private readonly store: LabStore,
    /** null when IndexedDB is unavailable: every write is skipped. */
    readonly db: RunDatabase | null,
  ) {}

  write(work: (db: RunDatabase) => Promise<void>): void {
    if (!this.db) return;
    const pending = work(this.db).catch((error: unknown) => this.failure(error));
    this.pending.add(pending);
    void pending.finally(() => this.pending.delete(pending));
  }

  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  failure(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    notify(this.store, 'error', `runs are not being saved in this browser: ${error instanceof Error ? error.message : String(error)}`);
  }
}
