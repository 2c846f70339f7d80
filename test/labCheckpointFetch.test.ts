/**
 * Fetching a served checkpoint (model.json + weights.bin beside it) with a fake fetch: both URL
 * forms, and a clear message for a missing file, an SPA server's HTML fallback and a garbled manifest.
 */
import { describe, expect, it } from 'vitest';
import { fetchCheckpoint } from '../src/browser/checkpointFetch';

const MANIFEST = { format: 'tir-lab-checkpoint', formatVersion: 1 };
const WEIGHTS = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]);

/** Serves `files` by URL path; anything else gets `missing` (a 404, or index.html as vite preview does). */
function fakeFetch(files: Record<string, Response | (() => Response)>, missing: () => Response, asked: string[] = []): typeof fetch {
  return (async (input: RequestInfo | URL) => {
    const path = new URL(String(input)).pathname;
    asked.push(String(input));
    const file = files[path];
    return file === undefined ? missing() : typeof file === 'function' ? file() : file;
  }) as typeof fetch;
}

const json = (value: unknown) => () => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } });
const binary = (bytes: Uint8Array) => () => new Response(new Blob([bytes as Uint8Array<ArrayBuffer>]), { headers: { 'content-type': 'application/octet-stream' } });
const notFound = () => new Response('nope', { status: 404 });
const indexHtml = () => new Response('<!doctype html><html>', { headers: { 'content-type': 'text/html' } });

describe('fetchCheckpoint', () => {
  const served = { '/models/base/model.json': json(MANIFEST), '/models/base/weights.bin': binary(WEIGHTS) };

  it('reads the manifest and the weights beside it, from the manifest URL or its folder', async () => {
    const asked: string[] = [];
    const fromManifest = await fetchCheckpoint('http://lab.test/models/base/model.json', fakeFetch(served, notFound, asked));
    expect(fromManifest.manifest).toEqual(MANIFEST);
    expect(Array.from(fromManifest.weights)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const fromFolder = await fetchCheckpoint('http://lab.test/models/base/', fakeFetch(served, notFound, asked));
    expect(fromFolder.manifest).toEqual(MANIFEST);
    expect(asked).toEqual([
      'http://lab.test/models/base/model.json',
      'http://lab.test/models/base/weights.bin',
      'http://lab.test/models/base/model.json',
      'http://lab.test/models/base/weights.bin',
    ]);
  });

  it('names the missing file, also when the server answers with its index.html', async () => {
    await expect(fetchCheckpoint('http://lab.test/models/other/model.json', fakeFetch(served, notFound))).rejects.toThrow(
      'could not fetch /models/other/model.json: HTTP 404 (not found)',
    );
    await expect(fetchCheckpoint('http://lab.test/models/other/model.json', fakeFetch(served, indexHtml))).rejects.toThrow(
      'could not fetch /models/other/model.json: the server sent an HTML page, so there is no checkpoint file there',
    );
    const noWeights = { '/models/base/model.json': json(MANIFEST) };
    await expect(fetchCheckpoint('http://lab.test/models/base/model.json', fakeFetch(noWeights, notFound))).rejects.toThrow(
      'could not fetch /models/base/weights.bin: HTTP 404 (not found)',
    );
  });

  it('says when the manifest is not JSON or the network fails', async () => {
    const garbled = { ...served, '/models/base/model.json': () => new Response('{"format": tir', { headers: { 'content-type': 'application/json' } }) };
    await expect(fetchCheckpoint('http://lab.test/models/base/model.json', fakeFetch(garbled, notFound))).rejects.toThrow(
      'checkpoint manifest /models/base/model.json is not JSON (it starts with "{\\"format\\": tir")',
    );
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    await expect(fetchCheckpoint('http://lab.test/models/base/model.json', offline)).rejects.toThrow(
      'could not fetch /models/base/model.json: Failed to fetch',
    );
  });
});
