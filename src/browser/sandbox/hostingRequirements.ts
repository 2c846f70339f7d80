/**
 * What the Python sandbox needs from the way it is served (docs/hosting.md): the page cross-origin
 * isolated (the interrupt buffer), and the Python worker's script served with its CSP (no code
 * generation from strings). Without them the worker refuses to run Python and the lab says why.
 */
import type { HostingReport } from './workerMessages';

/** What is missing, in words for people; empty when the hosting is right. */
export function hostingProblems(report: HostingReport): string[] {
  const problems: string[] = [];
  if (!report.crossOriginIsolated) {
    problems.push('the page is not cross-origin isolated (no Cross-Origin-Opener-Policy / Cross-Origin-Embedder-Policy headers)');
  }
  if (!report.codeGenerationBlocked) {
    problems.push("the Python worker's Content-Security-Policy is not in force (it can evaluate strings as code)");
  }
  return problems;
}
