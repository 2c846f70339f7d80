/**
 * How many answers made 0, 1, ..., 7 and 8 or more executed calls at the latest step
 * (StepMetrics.callsHistogram). All nine bins are drawn, empty ones too, so the bars keep their
 * places from step to step; a run recorded before the bins were fixed is binned the same way.
 */
import { binnedCallsHistogram, callsBinLabel, CALLS_HISTOGRAM_BINS } from '../../core/metrics/codeUse';
import { useLabShallow } from '../LabContext';
import { selectedRun } from '../state/labStore';
import { lastIndexWithValue } from '../state/runColumns';

export function CallsHistogram() {
  const latest = useLabShallow((s) => {
    const columns = selectedRun(s)?.columns;
    const i = columns ? lastIndexWithValue(columns.callsHistogram) : -1;
    return columns && i >= 0 ? { step: columns.step[i], callsHistogram: columns.callsHistogram[i] } : null;
  });
  const counts = latest?.callsHistogram ? binnedCallsHistogram(latest.callsHistogram) : [];
  const total = counts.reduce((a, b) => a + b, 0);
  const highest = Math.max(1, ...counts);
  return (
    <figure className="chart histogram" data-testid="chart-calls-histogram">
      <figcaption>Calls per answer: histogram{latest ? ` at step ${latest.step}` : ''}</figcaption>
      {counts.length === 0 ? (
        <p className="empty">No step yet.</p>
      ) : (
        <div className="bars" role="img" aria-label={counts.map((c, bin) => `${callsBinLabel(bin)} calls: ${c}`).join(', ')}>
          {counts.map((count, bin) => (
            <div className="bar" key={bin}>
              <span className="bar-count">{count}</span>
              <span className="bar-fill" style={{ height: `${(100 * count) / highest}%` }} />
              <span className="bar-label">{callsBinLabel(bin)}</span>
            </div>
          ))}
        </div>
      )}
      {total > 0 && (
        <p className="chart-note">
          {total} answers; x = executed calls ({callsBinLabel(CALLS_HISTOGRAM_BINS - 1)}: {CALLS_HISTOGRAM_BINS - 1} or more)
        </p>
      )}
    </figure>
  );
}
