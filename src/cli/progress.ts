/** A one-line progress bar with an ETA for long CLI work, redrawn on stderr. */
export function progressLine(done: number, total: number, startedMs: number, figures: string): string {
  const width = 20;
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const elapsed = (performance.now() - startedMs) / 1000;
  const eta = done === 0 ? NaN : (elapsed / done) * (total - done);
  return `[${'='.repeat(filled)}${' '.repeat(width - filled)}] ${done}/${total} ${figures} | ${formatDuration(elapsed)} elapsed, ETA ${formatDuration(eta)}`;
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '--';
  // Rounded once, so 539.6 s reads 9m00s, not 8m60s.
  const whole = Math.round(seconds);
  const m = Math.floor(whole / 60);
  const s = whole % 60;
  return m > 0 ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}

/**
 * Keeps the process going when stderr closes under it (`| head`, a closed terminal, a dead log
 * reader): what it shows is a side show beside the run's files, and Node would turn the stream's
 * EPIPE or EIO into an uncaught exception that ends the run unsaved. The lines written after that go
 * nowhere; the exit code still says how the run ended.
 */
export function outliveClosedStderr(): void {
  process.stderr.on('error', () => {});
}

export function drawProgress(line: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${line}`);
  else process.stderr.write(`${line}\n`);
}

/**
 * tfjs-wasm resolves data() as a microtask, so a training loop never returns to the event loop by
 * itself: file writes, signals and timers would wait until the loop ends.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
