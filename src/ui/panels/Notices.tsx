/** Errors and notes for people: what went wrong or what happened, dismissable. */
import { useLab, useLabState } from '../LabContext';
import { dismissNotice } from '../state/labStore';

export function Notices() {
  const { store } = useLab();
  const notices = useLabState((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
          <span>{n.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => dismissNotice(store, n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
