/**
 * Checkpoints on disk (Node): a directory with `model.json` (the manifest, see
 * src/core/model/checkpoint.ts) and `weights.bin` (the float32 weights buffer).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserializeCheckpoint, serializeCheckpoint, type LoadedCheckpoint } from '../core/model/checkpoint';
import type { GPT } from '../core/model/gpt';
import type { TrainerState } from '../core/rl/trainerState';

export const MANIFEST_FILE = 'model.json';
export const WEIGHTS_FILE = 'weights.bin';

/** Writes dir/model.json and dir/weights.bin (with `trainer`, a run's checkpoint), creating `dir` if needed. */
export async function saveCheckpointDir(dir: string, model: GPT, meta: Record<string, unknown>, trainer?: TrainerState): Promise<void> {
  const { manifest, weights } = serializeCheckpoint(model, meta, trainer);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, WEIGHTS_FILE), weights);
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Reads a checkpoint directory back; throws saying which file is missing or what is wrong in it. */
export async function loadCheckpointDir(dir: string): Promise<LoadedCheckpoint> {
  const manifestText = await readCheckpointFile(dir, MANIFEST_FILE, 'utf8');
  const weights = await readCheckpointFile(dir, WEIGHTS_FILE);
  let manifest: unknown;
  try {
    manifest = JSON.parse(manifestText);
  } catch (error) {
    throw new Error(`${join(dir, MANIFEST_FILE)} is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return deserializeCheckpoint(manifest, new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength));
  } catch (error) {
    throw new Error(`${dir}: ${(error as Error).message}`);
  }
}

async function readCheckpointFile(dir: string, file: string): Promise<Buffer>;
async function readCheckpointFile(dir: string, file: string, encoding: 'utf8'): Promise<string>;
async function readCheckpointFile(dir: string, file: string, encoding?: 'utf8'): Promise<Buffer | string> {
  const path = join(dir, file);
  try {
    return encoding ? await readFile(path, encoding) : await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`checkpoint directory ${dir} has no ${file}`);
    throw error;
  }
}
