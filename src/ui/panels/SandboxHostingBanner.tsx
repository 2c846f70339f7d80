/**
 * No silent weak mode: when the lab is served without the headers its Python sandbox needs
 * (docs/hosting.md), the Python workers refuse to run model code, and this banner says why.
 */
import { useEffect, useState } from 'react';
import { probeSandboxHosting } from '../../browser/sandbox/hostingProbe';
import { hostingProblems } from '../../browser/sandbox/hostingRequirements';

export function SandboxHostingBanner() {
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => {
    let mounted = true;
    probeSandboxHosting().then(
      (report) => mounted && setProblems(hostingProblems(report)),
      (error: unknown) => mounted && setProblems([`the Python worker could not be checked (${String(error)})`]),
    );
    return () => {
      mounted = false;
    };
  }, []);
  if (problems.length === 0) return null;
  return (
    <div className="notice notice-error" role="alert" data-testid="sandbox-hosting-banner">
      <span>
        Model-written Python will not run here: {problems.join('; ')}. Serve the lab with the headers in docs/hosting.md.
      </span>
    </div>
  );
}
