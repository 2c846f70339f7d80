/**
 * Which build the wasm backend runs (threaded + SIMD, or single-threaded and why), recorded when
 * it starts so the backend badge can say it. A module of its own: it imports nothing, so
 * chooseBackend stays loadable in Node.
 */
let note: string | null = null;

export function recordWasmBuild(text: string): void {
  note = text;
}

/** Null until the wasm backend has started in this realm. */
export function wasmBuildNote(): string | null {
  return note;
}
