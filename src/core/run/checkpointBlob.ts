/**
 * A checkpoint as it travels: its manifest JSON (checkpoint.ts) and its float32 weights, as the
 * page and the trainer worker pass it, IndexedDB stores it, a run file carries it and a checkpoint
 * directory holds it in two files (node/checkpointFiles.ts).
 */
export interface CheckpointBlob {
  manifest: unknown;
  weights: Uint8Array;
}
