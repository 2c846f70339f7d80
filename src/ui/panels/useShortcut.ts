/** Calls `action` when the page gets a key that shortcutFor maps to `shortcut` (state/shortcuts.ts). */
import { useEffect, useRef } from 'react';
import { shortcutFor, type KeyPress, type Shortcut } from '../state/shortcuts';

function keyPress(event: KeyboardEvent): KeyPress {
  const target = event.target instanceof HTMLElement ? event.target : null;
  return {
    key: event.key,
    altKey: event.altKey,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    repeat: event.repeat,
    target: target && { tagName: target.tagName, role: target.getAttribute('role'), editable: target.isContentEditable },
  };
}

export function useShortcut(shortcut: Shortcut, action: () => void): void {
  // The latest action, so the listener is added once and never calls a stale closure.
  const latest = useRef(action);
  latest.current = action;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      // A dialog open over the page has the keys: S must not step the run behind it.
      if (event.target instanceof Element && event.target.closest('dialog[open]')) return;
      if (shortcutFor(keyPress(event)) !== shortcut) return;
      event.preventDefault();
      latest.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [shortcut]);
}
