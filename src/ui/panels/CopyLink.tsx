/**
 * "Copy link": puts the page's address on the clipboard. The hash holds every knob, the seed and
 * the shown run (urlSync.ts), so the link opens the same experiment in another browser. Where the
 * clipboard is refused (a page served over plain http on a classroom network), the browser's own
 * prompt shows the link selected, to copy by hand.
 */
import { useEffect, useState } from 'react';

/** How long the button says the link was copied. */
const COPIED_MS = 2000;

export function CopyLink() {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  const copy = async () => {
    const link = location.href;
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
    } catch {
      window.prompt('Copy this link:', link);
    }
  };
  return (
    <button type="button" className="copy-link" data-testid="copy-link" onClick={() => void copy()} title="The address of this experiment, knobs and seed included, to share">
      {copied ? 'Link copied' : 'Copy link'}
    </button>
  );
}
