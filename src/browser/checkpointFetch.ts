/**
 * Fetches a checkpoint served as two files (the layout `npm run pretrain` writes and the app ships
 * in public/models/base/): `model.json`, the manifest, and `weights.bin` beside it. The manifest is
 * checked later, by deserializeCheckpoint; this only says clearly when a file is missing or garbled.
 */
import type { CheckpointBlob } from '../core/run/checkpointBlob';

const MANIFEST_FILE = 'model.json';
const WEIGHTS_FILE = 'weights.bin';

/** `url` is the manifest's URL or its folder (ending in '/'); relative URLs resolve against the page or worker. */
export async function fetchCheckpoint(url: string, fetchFile: typeof fetch = fetch): Promise<CheckpointBlob> {
  const manifestUrl = new URL(url.endsWith('/') ? `${url}${MANIFEST_FILE}` : url, globalThis.location?.href);
  const weightsUrl = new URL(WEIGHTS_FILE, manifestUrl);
  // One after the other, so a missing checkpoint is reported by its manifest's name.
  const manifestResponse = await get(manifestUrl, fetchFile);
  const weightsResponse = await get(weightsUrl, fetchFile);
  const text = await manifestResponse.text();
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch {
    throw new Error(`checkpoint manifest ${manifestUrl.pathname} is not JSON (it starts with ${JSON.stringify(text.slice(0, 40))})`);
  }
  return { manifest, weights: new Uint8Array(await weightsResponse.arrayBuffer()) };
}

async function get(url: URL, fetchFile: typeof fetch): Promise<Response> {
  let response: Response;
  try {
    response = await fetchFile(url);
  } catch (error) {
    throw new Error(`could not fetch ${url.pathname}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`could not fetch ${url.pathname}: HTTP ${response.status}${response.status === 404 ? ' (not found)' : ''}`);
  // A single-page-app server (vite preview among them) answers a missing file with its index.html.
  if (response.headers.get('content-type')?.includes('text/html')) {
    throw new Error(`could not fetch ${url.pathname}: the server sent an HTML page, so there is no checkpoint file there`);
  }
  return response;
}
