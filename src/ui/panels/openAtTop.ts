/**
 * Opens a modal dialog scrolled to its top. showModal focuses the dialog's first focusable element,
 * and a Close button at the end then scrolls the dialog to its bottom: the heading's Close comes
 * first, and the scroll is reset in case the browser scrolled anyway.
 */
export function openAtTop(dialog: HTMLDialogElement): void {
  dialog.showModal();
  dialog.scrollTop = 0;
}
