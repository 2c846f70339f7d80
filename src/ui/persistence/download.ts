/** Hands text to the browser as a file download. */
export function downloadText(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the object URL by now; give it a moment before revoking.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
