/** How many answers made 0, 1, 2, ... executed calls at the latest step (StepMetrics.callsHistogram). */
import { useLabShallow } from '../LabContext';
import { selectedRun } from '../state/labStore';
import { lastIndexWithValue } from '../state/runColumns';

export function CallsHistogram() {
  const latest = useLabShallow((s) => {
    const columns = selectedRun(s)?.columns;
    const i = columns ? lastIndexWithValue(columns.callsHistogram) : -1;
    return columns && i >= 0 ? { step: columns.step[i], callsHistogram: columns.callsHistogram[i] } : null;
  });
  const counts = latest?.callsHistogram ?? [];
  const total = counts.reduce((a, b) => a + b, 0);
  const highest = Math.max(1, ...counts);
  return (
    <figure className="chart histogram" data-testid="chart-calls-histogram">
      <figcaption>Calls per answer: histogram{latest ? ` at step ${latest.step}` : ''}</figcaption>
      {counts.length === 0 ? (
        <p className="empty">No step yet.</p>
      ) : (
        <div className="bars" role="img" aria-label={counts.map((c, calls) => `${calls} calls: ${c}`).join(', ')}>
          {counts.map((count, calls) => (
            <div className="bar" key={calls}>
              <span className="bar-count">{count}</span>
              <span className="bar-fill" style={{ height: `${(100 * count) / highest}%` }} />
              <span className="bar-label">{calls}</span>
            </div>
          ))}
        </div>
      )}
      {total > 0 && <p className="chart-note">{total} answers; x = executed calls</p>}
    </figure>
  );
}
