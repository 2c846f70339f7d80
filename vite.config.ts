/**
 * Vite config for the lab. The app is cross-origin isolated (COOP + COEP, in dev and preview) so the
 * Python workers can share an interrupt buffer (SharedArrayBuffer); the Python worker's script is
 * served with its own CSP, which is what stops model-written code from reaching eval or the
 * network. docs/hosting.md lists the same headers for any other host.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Connect, type Plugin } from 'vite';

const CROSS_ORIGIN_ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/**
 * The Python worker's policy. No 'unsafe-eval': `js.eval`, `js.Function` and emscripten_run_script
 * fail. 'wasm-unsafe-eval' is needed because Pyodide compiles its WebAssembly module; connect-src
 * 'self' lets it fetch its own runtime files and nothing else.
 */
export const PYTHON_WORKER_CSP =
  "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; worker-src 'none'";

// Dev serves the worker as /src/browser/sandbox/python.worker.ts?worker_file..., a build as assets/python.worker-<hash>.js.
const PYTHON_WORKER_PATH = /\/python\.worker(\.ts|-[\w-]+\.js)$/;

function pythonWorkerCsp(): Connect.NextHandleFunction {
  return (request, response, next) => {
    const path = (request.url ?? '').split('?')[0];
    if (PYTHON_WORKER_PATH.test(path)) response.setHeader('Content-Security-Policy', PYTHON_WORKER_CSP);
    next();
  };
}

/** A worker's CSP comes from its own response headers, so set them on that one URL. */
function pythonWorkerCspPlugin(): Plugin {
  return {
    name: 'tir-lab:python-worker-csp',
    configureServer(server) {
      server.middlewares.use(pythonWorkerCsp());
    },
    configurePreviewServer(server) {
      server.middlewares.use(pythonWorkerCsp());
    },
  };
}

/** The build mode whose output carries the e2e suite's harness pages (`vite build --mode e2e`). */
export const E2E_MODE = 'e2e';

/**
 * The app; in the e2e build also every test harness page under e2e/harness/ (the e2e suite and the
 * browser benchmarks run against the build). A plain build ships the app alone.
 */
export function buildInputs(mode: string): Record<string, string> {
  const inputs: Record<string, string> = { main: 'index.html' };
  if (mode !== E2E_MODE) return inputs;
  const harnessDir = fileURLToPath(new URL('./e2e/harness/', import.meta.url));
  const harnessPages = readdirSync(harnessDir).filter((name) => name.endsWith('.html'));
  for (const page of harnessPages) inputs[`harness-${page.replace(/\.html$/, '')}`] = `e2e/harness/${page}`;
  return inputs;
}

export default defineConfig(({ mode }) => ({
  plugins: [pythonWorkerCspPlugin()],
  server: { headers: CROSS_ORIGIN_ISOLATION },
  preview: { headers: CROSS_ORIGIN_ISOLATION },
  worker: { format: 'es' as const },
  build: {
    target: 'es2022',
    rolldownOptions: { input: buildInputs(mode) },
  },
}));
