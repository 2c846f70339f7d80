/** A progress bar with done/total and an ETA, for training, pretraining, sweeps and evaluation. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  // Rounded once, so 119.6 s reads 2 min 0 s, not 1 min 60 s.
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${whole % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function ProgressBar(props: { label: string; done: number; total: number; etaSeconds: number | null; detail?: string; testId?: string }) {
  const { label, done, total, etaSeconds, detail, testId } = props;
  const share = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div className="progress" data-testid={testId}>
      <div className="progress-text">
        <span>
          {label} {done}/{total}
          {detail ? ` · ${detail}` : ''}
        </span>
        <span>{total > 0 && done >= total ? 'done' : etaSeconds !== null ? `ETA ${formatDuration(etaSeconds)}` : ''}</span>
      </div>
      <div className="progress-track" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-label={label}>
        <div className="progress-fill" style={{ width: `${100 * share}%` }} />
      </div>
    </div>
  );
}
