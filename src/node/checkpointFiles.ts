/**
 * Checkpoints on disk (Node): a directory with `model.json` (the manifest, see
 * src/core/run/checkpoint.ts) and `weights.bin` (the float32 weights buffer). On disk the manifest
 * also records `weightsSha256`, the SHA-256 of the weights.bin written with it, so a weights.bin
 * from another save beside it (same size, other step) is refused instead of loaded as this one.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { nonFiniteEntry } from '../core/archive/checkpointFile';
import { deserializeCheckpoint, serializeCheckpoint, type CheckpointManifest, type LoadedCheckpoint } from '../core/run/checkpoint';
import type { GPT } from '../core/model/gpt';
import type { CheckpointBlob } from '../core/run/checkpointBlob';
import type { TrainerState } from '../core/run/trainerState';

export const MANIFEST_FILE = 'model.json';
export const WEIGHTS_FILE = 'weights.bin';

/** A checkpoint directory that cannot be loaded as it is: missing, cut, mismatched or non-finite. The message says why. */
export class CheckpointError extends Error {}

/**
 * Writes dir/model.json and dir/weights.bin (with `trainer`, a run's checkpoint), creating `dir` if
 * needed. Each file is written whole under a temporary name and renamed into place, so a kill
 * leaves either file old or new, never cut; a pair from two saves is caught on load by the hash.
 */
export async function saveCheckpointDir(dir: string, model: GPT, meta: Record<string, unknown>, trainer?: TrainerState): Promise<void> {
  await writeCheckpointBlobDir(dir, serializeCheckpoint(model, meta, trainer));
}

/** A checkpoint as its manifest and weights (a run file's, the lab's) written as a checkpoint directory, as saveCheckpointDir writes one. */
export async function writeCheckpointBlobDir(dir: string, { manifest, weights }: CheckpointBlob): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeWhole(join(dir, WEIGHTS_FILE), weights);
  await writeWhole(join(dir, MANIFEST_FILE), manifestText(manifest as CheckpointManifest, weights));
}

/**
 * Replaces the checkpoint directory `dir` as one step: the new checkpoint is written to `dir.new`,
 * the old one renamed to `dir.old`, the new one renamed to `dir`, the old one removed. A kill at
 * any moment leaves `dir` whole (old or new), or — between the two renames — no `dir` and a whole
 * `dir.new`, which finishCheckpointSwap puts in place. Synchronous, so that nothing else runs
 * while it writes: at Ctrl-C, the abandoned step's tfjs work (microtask chains) could otherwise
 * take the event loop for seconds between two writes.
 */
export function saveCheckpointDirAtomically(dir: string, model: GPT, meta: Record<string, unknown>, trainer?: TrainerState): void {
  const { manifest, weights } = serializeCheckpoint(model, meta, trainer);
  const fresh = `${dir}.new`;
  const old = `${dir}.old`;
  rmSync(fresh, { recursive: true, force: true });
  mkdirSync(fresh, { recursive: true });
  writeFlushed(join(fresh, WEIGHTS_FILE), weights);
  writeFlushed(join(fresh, MANIFEST_FILE), manifestText(manifest, weights));
  rmSync(old, { recursive: true, force: true });
  if (existsSync(dir)) renameSync(dir, old);
  renameSync(fresh, dir);
  rmSync(old, { recursive: true, force: true });
}

/**
 * Completes a swap of saveCheckpointDirAtomically that a kill stopped between its renames (no
 * `dir`, the old one in `dir.old`, the new one whole in `dir.new`); does nothing otherwise.
 */
export async function finishCheckpointSwap(dir: string): Promise<void> {
  if (existsSync(dir) || !existsSync(`${dir}.old`) || !existsSync(`${dir}.new`)) return;
  await rename(`${dir}.new`, dir);
  await rm(`${dir}.old`, { recursive: true, force: true });
}

/**
 * Reads a checkpoint directory back; throws a CheckpointError saying which file is missing or what
 * is wrong in it: its layout, a weights.bin from another save, or NaN or infinite values (a run
 * that diverged: sampled or trained on, every answer would be garbage and every update NaN).
 */
export async function loadCheckpointDir(dir: string): Promise<LoadedCheckpoint> {
  const { manifest, bytes } = await readCheckpointFiles(dir);
  // The layout first: a weights.bin cut short (a copy or a save that did not finish) is said to be
  // cut, where its hash would only say it is not this save's.
  let loaded: LoadedCheckpoint;
  try {
    loaded = deserializeCheckpoint(manifest, bytes);
  } catch (error) {
    throw new CheckpointError(`${dir}: ${(error as Error).message}`);
  }
  const recorded = (manifest as { weightsSha256?: unknown }).weightsSha256;
  if (recorded !== undefined && recorded !== sha256(bytes)) {
    loaded.model.dispose();
    throw new CheckpointError(notOneSave(dir));
  }
  const layout = manifest as CheckpointManifest;
  const bad = nonFiniteEntry([...layout.weights, ...(layout.trainer?.optimizer.moments ?? [])], bytes);
  if (bad !== null) {
    loaded.model.dispose();
    throw new CheckpointError(
      `${dir}: ${bad.name.includes('/') ? 'optimizer moment' : 'weight'} "${bad.name}" has ${bad.count === 1 ? '1 value that is' : `${bad.count} values that are`} NaN or infinite: the run it was saved from diverged`,
    );
  }
  return loaded;
}

/**
 * A checkpoint directory's manifest and weights as they are, the two files checked to be of one
 * save, without the on-disk hash: what a run file carries (its codec checks the rest: layout,
 * finite values). No model is built, so no tfjs backend is needed.
 */
export async function readCheckpointBlob(dir: string): Promise<CheckpointBlob> {
  const { manifest, bytes } = await readCheckpointFiles(dir);
  if (typeof manifest !== 'object' || manifest === null) throw new CheckpointError(`${join(dir, MANIFEST_FILE)} is not a checkpoint manifest`);
  const { weightsSha256, ...rest } = manifest as { weightsSha256?: unknown };
  if (weightsSha256 !== undefined && weightsSha256 !== sha256(bytes)) throw new CheckpointError(notOneSave(dir));
  return { manifest: rest, weights: bytes };
}

/** The manifest, parsed, and the weights' bytes of a checkpoint directory. */
async function readCheckpointFiles(dir: string): Promise<{ manifest: unknown; bytes: Uint8Array }> {
  const manifestText = await readCheckpointFile(dir, MANIFEST_FILE, 'utf8');
  const weights = await readCheckpointFile(dir, WEIGHTS_FILE);
  try {
    return { manifest: JSON.parse(manifestText), bytes: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength) };
  } catch (error) {
    throw new CheckpointError(`${join(dir, MANIFEST_FILE)} is not valid JSON: ${(error as Error).message}`);
  }
}

function notOneSave(dir: string): string {
  return `${join(dir, WEIGHTS_FILE)} is not the weights ${join(dir, MANIFEST_FILE)} was saved with (its SHA-256 differs from the recorded one): the two files come from different saves`;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function manifestText(manifest: CheckpointManifest, weights: Uint8Array): string {
  return `${JSON.stringify({ ...manifest, weightsSha256: sha256(weights) }, null, 2)}\n`;
}

/** `data` at `path`, flushed to disk (a rename must not make a file visible before its contents). */
function writeFlushed(path: string, data: Uint8Array | string): void {
  const fd = openSync(path, 'w');
  try {
    writeFileSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** `data` at `path`, written to a temporary file, flushed to disk and renamed over `path`. */
async function writeWhole(path: string, data: Uint8Array | string): Promise<void> {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, 'w');
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
}

async function readCheckpointFile(dir: string, file: string): Promise<Buffer>;
async function readCheckpointFile(dir: string, file: string, encoding: 'utf8'): Promise<string>;
async function readCheckpointFile(dir: string, file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const path = join(dir, file);
  try {
    return encoding ? await readFile(path, encoding) : await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CheckpointError(`checkpoint directory ${dir} has no ${file}`);
    throw error;
  }
}
