import { exportFileName } from '../../core/archive/runExport';

/** Hands text to the browser as a file download. */
export function downloadText(fileName: string, text: string, type: string): void {
  downloadBlob(fileName, new Blob([text], { type }));
}

function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the object URL by now; give it a moment before revoking.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Hands bytes (a zip) to the browser as a file download. */
export function downloadBytes(fileName: string, bytes: Uint8Array, type: string): void {
  downloadBlob(fileName, new Blob([bytes as Uint8Array<ArrayBuffer>], { type }));
}

/** A run's file (the controller's exportRun text) as `NAME-run.json`, wherever the page offers it. */
export function downloadRunFile(runName: string, text: string): void {
  downloadText(exportFileName(`${runName}-run`, 'json'), text, 'application/json');
}
