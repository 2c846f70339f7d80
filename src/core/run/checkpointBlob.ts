/**
 * A checkpoint as it travels between the page and the worker and is stored in IndexedDB: the
 * manifest JSON and the float32 weights. Its own file because both the protocol and the evaluation
 * request carry it.
 */
export interface CheckpointBlob {
  manifest: unknown;
  weights: Uint8Array;
}
