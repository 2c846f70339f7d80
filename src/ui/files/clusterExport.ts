/**
 * The lab's "Export for a cluster": the same bundle as `npm run export` (src/core/export), zipped.
 * The Python files come into the page as text through Vite's ?raw imports of python/.
 */
import agentFunc from '../../../python/agent_func.py?raw';
import reward from '../../../python/reward.py?raw';
import tirEpisode from '../../../python/tir_episode.py?raw';
import tirSandbox from '../../../python/tir_sandbox.py?raw';
import verlAgentLoop from '../../../python/verl_agent_loop.py?raw';
import verlTool from '../../../python/verl_tool.py?raw';
import type { ExperimentConfig } from '../../core/experiment';
import { bundleZip } from '../../core/export/bundleZip';
import { clusterBundle } from '../../core/export/clusterBundle';
import type { EngineName } from '../../core/export/engineVersions';
import { defaultTrainSize } from '../../core/export/exportSplits';
import { exportFileName } from '../../core/archive/runExport';

const PYTHON_FILES: Record<string, string> = {
  'agent_func.py': agentFunc,
  'reward.py': reward,
  'tir_episode.py': tirEpisode,
  'tir_sandbox.py': tirSandbox,
  'verl_agent_loop.py': verlAgentLoop,
  'verl_tool.py': verlTool,
};

export function clusterExportZip(engine: EngineName, config: ExperimentConfig, model: string, source: string): { fileName: string; bytes: Uint8Array } {
  const files = clusterBundle({ engine, config, model, trainSize: defaultTrainSize(config), source }, PYTHON_FILES);
  const fileName = exportFileName(`${source}-${engine}`, 'zip');
  return { fileName, bytes: bundleZip(fileName.replace(/\.zip$/, ''), files) };
}
