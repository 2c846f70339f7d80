/**
 * Errors and notes for people: what went wrong or what happened, dismissable. They float over the
 * bottom of the window, so a notice never pushes the charts or the newest answer down; a note
 * leaves by itself after INFO_NOTICE_MS, an error stays until dismissed.
 */
import { useEffect } from 'react';
import { useLab, useLabState } from '../LabContext';
import { dismissNotice, INFO_NOTICE_MS, type Notice } from '../state/labStore';

export function Notices() {
  const notices = useLabState((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <NoticeLine key={n.id} notice={n} />
      ))}
    </div>
  );
}

function NoticeLine({ notice }: { notice: Notice }) {
  const { store } = useLab();
  useEffect(() => {
    if (notice.kind !== 'info') return;
    const timer = setTimeout(() => dismissNotice(store, notice.id), INFO_NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice, store]);
  return (
    <div className={`notice notice-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
      <span>{notice.text}</span>
      <button type="button" aria-label="Dismiss" onClick={() => dismissNotice(store, notice.id)}>
        ×
      </button>
    </div>
  );
}
