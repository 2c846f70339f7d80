/**
 * A local HTTP server that sandboxed code is told to reach. It only counts what arrives (requests
 * and WebSocket upgrades): a contained sandbox leaves it at zero. It listens on 127.0.0.1 only.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TrapServer {
  /** e.g. http://127.0.0.1:39017 */
  readonly url: string;
  readonly port: number;
  /** Requests and upgrade attempts seen so far, as "METHOD /path". */
  readonly hits: readonly string[];
  close(): Promise<void>;
}

export async function startTrapServer(): Promise<TrapServer> {
  const hits: string[] = [];
  const server = createServer((request, response) => {
    hits.push(`${request.method} ${request.url}`);
    response.setHeader('Access-Control-Allow-Origin', '*');
    response.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    response.end('trap');
  });
  server.on('upgrade', (request, socket) => {
    hits.push(`UPGRADE ${request.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
