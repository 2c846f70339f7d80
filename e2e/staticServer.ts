/**
 * A plain static file server for dist/, as a common host serves a built site: no headers but the
 * content type, unless asked for cross-origin isolation. It shows what the lab does when it is not
 * served as docs/hosting.md says.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.zip': 'application/zip',
  '.bin': 'application/octet-stream',
};

export interface StaticServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startStaticServer(root: string, options: { crossOriginIsolated: boolean }): Promise<StaticServer> {
  const base = resolve(root);
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent((request.url ?? '/').split('?')[0]!));
    let file = join(base, path);
    if (!file.startsWith(base) || !existsSync(file)) {
      response.writeHead(404).end();
      return;
    }
    if (statSync(file).isDirectory()) file = join(file, 'index.html');
    const headers: OutgoingHttpHeaders = { 'Content-Type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream' };
    if (options.crossOriginIsolated) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    response.writeHead(200, headers);
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
