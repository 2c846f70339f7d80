/**
 * The browser's PythonSandbox: a SandboxPool of Python workers. N (pool.size) is the lab's knob;
 * the pool keeps a warm standby so a killed worker is replaced without a cold start.
 */
import { SandboxPool, type SandboxPoolOptions } from '../../core/sandbox/pool';
import { workerInterpreterFactory, type WorkerInterpreterOptions } from './workerInterpreter';

export interface BrowserSandboxOptions {
  pool?: Partial<SandboxPoolOptions>;
  interpreter?: Partial<WorkerInterpreterOptions>;
}

export function createBrowserSandbox(options: BrowserSandboxOptions = {}): SandboxPool {
  return new SandboxPool(workerInterpreterFactory(options.interpreter), options.pool);
}
