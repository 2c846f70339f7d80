/** How many answers made 0, 1, 2, ... executed calls at the latest step (StepMetrics.callsHistogram). */
import { useLabState } from '../LabContext';
import { selectedRun } from '../state/labStore';

export function CallsHistogram() {
  const latest = useLabState((s) => {
    const history = selectedRun(s)?.history ?? [];
    for (let i = history.length - 1; i >= 0; i--) if (history[i].callsHistogram) return history[i];
    return null;
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
