/**
 * The Python sandbox for Node (CLIs, tests): a SandboxPool over interpreters that each run in a
 * locked-down child process (nodeInterpreter.ts).
 */
import { SandboxPool, type SandboxPoolOptions } from '../../core/sandbox/pool';
import { nodeInterpreterFactory, type NodeInterpreterOptions } from './nodeInterpreter';

export type NodeSandboxOptions = Partial<SandboxPoolOptions> & NodeInterpreterOptions;

export function createNodeSandbox(options: NodeSandboxOptions = {}): SandboxPool {
  const { size, standby, recycleAfterRuns, runOptions, ...interpreterOptions } = options;
  return new SandboxPool(nodeInterpreterFactory(interpreterOptions), { size, standby, recycleAfterRuns, runOptions });
}
