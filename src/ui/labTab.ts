/**
 * The lab runs in one tab of a browser at a time. Two tabs would train and save the same stored
 * runs over each other: both training one run interleave two trainings' steps in its curves and
 * checkpoint, and one tab's Reset or Delete removes what the other is still writing. The tab that
 * has the lab holds a Web Lock; another tab shows why it waits (OtherTabScreen), and "Use the lab
 * here" asks the holder over a BroadcastChannel to pause, save and let go, then reloads to read the
 * runs as the holder left them. The lock goes with its tab when the tab closes or navigates
 * (a held lock keeps a page out of the back/forward cache: the Web Locks spec's bfcache tests).
 */

const LOCK_NAME = 'tir-lab';
const CHANNEL_NAME = 'tir-lab-tabs';
const LEAVE_PLEASE = 'leave-please';
/** A reload's old document may hold the lock a moment longer than the new one takes to ask for it. */
const CLAIM_GRACE_MS = 2000;

export interface LabTab {
  /**
   * `leave` runs (once) when another tab asks for the lab, even if it asked before this was called;
   * the lock goes once it has settled.
   */
  onLeaveAsked(leave: () => Promise<void>): void;
}

/** The lab in this tab; null when another tab of this browser has it. Without Web Locks the lab is not guarded. */
export async function claimLabTab(): Promise<LabTab | null> {
  if (!('locks' in navigator) || typeof BroadcastChannel === 'undefined') return { onLeaveAsked: () => undefined };
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const granted = new Promise<boolean>((resolve, reject) => {
    navigator.locks
      .request(LOCK_NAME, { signal: AbortSignal.timeout(CLAIM_GRACE_MS) }, () => {
        resolve(true);
        return held;
      })
      .catch((error: unknown) => (error instanceof DOMException && (error.name === 'AbortError' || error.name === 'TimeoutError') ? resolve(false) : reject(error)));
  });
  if (!(await granted)) return null;
  return heldLab(release);
}

/** The holder's side: one request to leave is served, however many come. */
function heldLab(release: () => void): LabTab {
  const channel = new BroadcastChannel(CHANNEL_NAME);
  let leave: (() => Promise<void>) | null = null;
  let asked = false;
  let leaving = false;
  const serve = (): void => {
    if (!leave || !asked || leaving) return;
    leaving = true;
    // The lock goes even so: the tab that asked waits for it.
    void leave()
      .catch((error: unknown) => console.error('TIR Lab: leaving for another tab failed', error))
      .finally(() => {
        channel.close();
        release();
      });
  };
  channel.onmessage = (event: MessageEvent) => {
    if (event.data !== LEAVE_PLEASE) return;
    asked = true;
    serve();
  };
  return {
    onLeaveAsked(handler) {
      leave = handler;
      serve();
    },
  };
}

/**
 * Asks the tab that has the lab to let it go, waits until it has (or has closed), then reloads this
 * tab, which claims the lab as it opens.
 */
export async function takeLabHere(): Promise<void> {
  const channel = new BroadcastChannel(CHANNEL_NAME);
  channel.postMessage(LEAVE_PLEASE);
  await navigator.locks.request(LOCK_NAME, () => undefined);
  channel.close();
  location.reload();
}
