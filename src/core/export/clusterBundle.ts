/**
 * An experiment as a directory for a cluster engine: the data split as the lab splits it, the
 * lab's reward and tool loop in Python, the tool settings, and run.sh with every knob mapped
 * (engineKnobs.ts). The same files for the CLI (`npm run export`) and the lab's zip. The Python
 * files are passed in, since Node reads them from python/ and the browser bundles them.
 */
import { OUTPUT_TRUNCATED_MARKER } from '../rollout/episode';
import { sandboxRunOptions, type ExperimentConfig } from '../experiment';
import { ENGINE_RELEASES, OPENRLHF_COMMIT, OPENRLHF_VERSION, VERL_COMMIT, VERL_VERSION, type EngineName } from './engineVersions';
import { openrlhfKnobArgs, PROMPT_TOKEN_BUDGET, usesCritic, verlKnobArgs, verlMiniBatchPrompts } from './engineKnobs';
import { exportSplits } from './exportSplits';
import { inexactKnobLines } from './knobTable';
import { jsonLines, OPENRLHF_INPUT_KEY, OPENRLHF_LABEL_KEY, openrlhfRows } from './openrlhfData';
import { VERL_AGENT_LOOP, VERL_TOOL_NAME, verlParquet, verlRows } from './verlData';

export const PYTHON_FILES: Record<EngineName, readonly string[]> = {
  verl: ['reward.py', 'tir_episode.py', 'tir_sandbox.py', 'verl_tool.py', 'verl_agent_loop.py'],
  openrlhf: ['reward.py', 'tir_episode.py', 'tir_sandbox.py', 'agent_func.py'],
};

export const BUNDLE_FORMAT = 'tir-lab-cluster-export';

export interface BundleRequest {
  engine: EngineName;
  config: ExperimentConfig;
  /** Hugging Face model id or path the engine starts from. */
  model: string;
  trainSize: number;
  /** Where the config came from: a preset name or a run. */
  source: string;
  /** verl's micro-batch per GPU (sequences per forward pass); absent: run.sh derives it from the GPU count. */
  microBatchPerGpu?: number;
}

/** The derived micro-batch's ceiling: small forward passes, meant to fit a 0.5B-7B model's short sequences (not measured here). */
export const DEFAULT_MICRO_BATCH_CAP = 4;
/** vLLM's share of each GPU's memory when OpenRLHF colocates it with the trainer (OpenRLHF's own hybrid-engine examples). */
export const OPENRLHF_COLOCATED_VLLM_MEMORY = 0.5;

/** File path inside the bundle -> contents. */
export type BundleFiles = Record<string, string | Uint8Array>;

/** The tool's limits, as the lab's sandbox and episode apply them. */
function toolLimits(config: ExperimentConfig) {
  return {
    format: config.format,
    max_output_chars: config.maxOutputChars,
    timeout_s: config.sandboxTimeoutMs / 1000,
    max_output_bytes: sandboxRunOptions(config).maxOutputBytes,
  };
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

function verlAgentLoopConfig(): string {
  return `# verl ${VERL_VERSION} agent loops: actor_rollout_ref.rollout.agent.agent_loop_config_path
- name: ${VERL_AGENT_LOOP}
  _target_: verl_agent_loop.TirAgentLoop
`;
}

function verlToolConfig(config: ExperimentConfig): string {
  const limits = toolLimits(config);
  return `# verl ${VERL_VERSION} tool config: actor_rollout_ref.rollout.multi_turn.tool_config_path
tools:
  - class_name: verl_tool.TirCodeInterpreterTool
    config:
      type: native
      format: ${limits.format}
      max_output_chars: ${limits.max_output_chars}
      timeout_s: ${limits.timeout_s}
      max_output_bytes: ${limits.max_output_bytes}
    tool_schema:
      type: function
      function:
        name: ${VERL_TOOL_NAME}
        description: Runs Python code and returns what it printed.
        parameters:
          type: object
          properties:
            code:
              type: string
              description: The Python code to run.
          required: [code]
`;
}

/** Refuses to start without a sandbox; saves the choice for engine workers that lack this environment. */
const SANDBOX_CHECK = `if [ -z "\${TIR_SANDBOX_URL:-}" ] && [ "\${TIR_ALLOW_UNSANDBOXED:-}" != 1 ]; then
  echo "set TIR_SANDBOX_URL to a SandboxFusion run_code endpoint (see README.md)" >&2
  exit 2
fi
python3 -c 'import json, os, sys; json.dump({"url": os.environ.get("TIR_SANDBOX_URL", ""), "allow_unsandboxed": os.environ.get("TIR_ALLOW_UNSANDBOXED") == "1"}, open(sys.argv[1], "w"))' "$HERE/sandbox.json"`;

/** The installed distribution's version (openrlhf 0.11.0's package has no __version__: its __init__.py is empty). */
function versionCheck(distribution: string, version: string): string {
  return `python3 -c 'import sys; from importlib.metadata import version; v = version(sys.argv[1]); sys.exit(0 if v.startswith(sys.argv[2]) else "this bundle was written for " + sys.argv[1] + " " + sys.argv[2] + ", found " + v)' ${distribution} ${version}`;
}

/**
 * verl's batch arithmetic at launch, for the GPU count given then. validate_config needs the step's
 * rollouts to split evenly over the GPUs, and every micro-batch size set (none has a default); the
 * FSDP workers cut each mini-batch into GPUS shares, rounding down (run.sh asks for an even split,
 * so the mini-batch stays the lab's), and each share into micro-batches.
 * MICRO_BATCH (the export's --micro-batch, or the environment) must divide a share; unset, it is
 * the largest divisor of a share up to DEFAULT_MICRO_BATCH_CAP.
 */
function verlBatchCheck(req: BundleRequest): string {
  const { config } = req;
  const rollouts = config.promptsPerStep * config.groupSize;
  const miniRollouts = verlMiniBatchPrompts(config) * config.groupSize;
  return `# verl shares each step's rollouts and each mini-batch evenly over the GPUs, in micro-batches of MICRO_BATCH sequences.
ROLLOUTS=${rollouts}
MINI_ROLLOUTS=${miniRollouts}
if ! [[ "$GPUS" =~ ^[1-9][0-9]*$ ]] || (( ROLLOUTS % GPUS != 0 || MINI_ROLLOUTS % GPUS != 0 )); then
  echo "verl shares the $ROLLOUTS rollouts of a step, and each mini-batch of $MINI_ROLLOUTS, evenly over the GPUs: GPUS=$GPUS does not divide both" >&2
  exit 2
fi
MINI_PER_GPU=$(( MINI_ROLLOUTS / GPUS ))
MICRO_BATCH="\${MICRO_BATCH:-${req.microBatchPerGpu ?? ''}}"
if [ -z "$MICRO_BATCH" ]; then
  MICRO_BATCH=$(( MINI_PER_GPU < ${DEFAULT_MICRO_BATCH_CAP} ? MINI_PER_GPU : ${DEFAULT_MICRO_BATCH_CAP} ))
  while (( MINI_PER_GPU % MICRO_BATCH != 0 )); do MICRO_BATCH=$(( MICRO_BATCH - 1 )); done
fi
if ! [[ "$MICRO_BATCH" =~ ^[1-9][0-9]*$ ]] || (( MINI_PER_GPU % MICRO_BATCH != 0 )); then
  echo "MICRO_BATCH=$MICRO_BATCH must divide each GPU's share of a mini-batch ($MINI_PER_GPU sequences)" >&2
  exit 2
fi`;
}

function continued(lines: string[]): string {
  return lines.map((l) => `  ${l} \\`).join('\n');
}

function verlRunScript(req: BundleRequest): string {
  const { config } = req;
  const args = [
    'data.train_files="$HERE/data/train.parquet"',
    'data.val_files="$HERE/data/test.parquet"',
    'data.return_raw_chat=True',
    'custom_reward_function.path="$HERE/reward.py"',
    'custom_reward_function.name=compute_score',
    'actor_rollout_ref.model.path="$MODEL"',
    ...(usesCritic(config) ? ['critic.model.path="$MODEL"'] : []),
    'actor_rollout_ref.rollout.name=vllm',
    'actor_rollout_ref.rollout.mode=async',
    'actor_rollout_ref.rollout.agent.agent_loop_config_path="$HERE/agent_loop.yaml"',
    'actor_rollout_ref.rollout.multi_turn.tool_config_path="$HERE/tool_config.yaml"',
    'actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu="$MICRO_BATCH"',
    'actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu="$MICRO_BATCH"',
    'actor_rollout_ref.ref.log_prob_micro_batch_size_per_gpu="$MICRO_BATCH"',
    ...(usesCritic(config) ? ['critic.ppo_micro_batch_size_per_gpu="$MICRO_BATCH"'] : []),
    ...verlKnobArgs(config),
    'trainer.project_name=tir-lab',
    `trainer.experiment_name=${shellQuote(`${req.source}-seed${config.seed}-nmax${config.nmax}-${config.algorithm}`)}`,
    'trainer.n_gpus_per_node="$GPUS"',
    'trainer.nnodes=1',
    "trainer.logger=['console']",
  ];
  return `#!/usr/bin/env bash
# A TIR Lab experiment on verl ${VERL_VERSION} (commit ${VERL_COMMIT}).
# pip install verl==${VERL_VERSION} with vLLM; then: MODEL=... GPUS=8 TIR_SANDBOX_URL=http://HOST:8080/run_code ./run.sh [more overrides]
# MICRO_BATCH=N sets the sequences per GPU in each forward pass (default: derived from GPUS).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MODEL="\${MODEL:-${req.model}}"
GPUS="\${GPUS:-8}"
${verlBatchCheck(req)}
${config.nmax > 0 ? `${SANDBOX_CHECK}\n` : ''}export PYTHONPATH="$HERE\${PYTHONPATH:+:$PYTHONPATH}"
${versionCheck('verl', VERL_VERSION)}
python3 -m verl.trainer.main_ppo \\
${continued(args)}
  "$@"
`;
}

function openrlhfRunScript(req: BundleRequest): string {
  const { config } = req;
  const args = [
    '--actor.model_name_or_path "$MODEL"',
    ...(usesCritic(config) ? ['--critic.model_name_or_path "$MODEL"'] : []),
    '--data.prompt_dataset "$HERE/data/train.jsonl"',
    '--eval.dataset "$HERE/data/test.jsonl"',
    `--data.input_key ${OPENRLHF_INPUT_KEY}`,
    `--data.label_key ${OPENRLHF_LABEL_KEY}`,
    '--train.agent_func_path "$HERE/agent_func.py"',
    ...openrlhfKnobArgs(config),
    '--vllm.num_engines "$GPUS"',
    '--actor.num_gpus_per_node "$GPUS"',
    ...(usesCritic(config) ? ['--critic.num_gpus_per_node "$GPUS"'] : []),
    '--ref.num_gpus_per_node "$GPUS"',
    // Colocated, vLLM and DeepSpeed take turns on each GPU: each sleeps (frees its memory) while the other works.
    '--train.colocate_all',
    '--vllm.enable_sleep',
    '--ds.enable_sleep',
    `--vllm.gpu_memory_utilization ${OPENRLHF_COLOCATED_VLLM_MEMORY}`,
    '--ckpt.output_dir "$HERE/checkpoints"',
  ];
  return `#!/usr/bin/env bash
# A TIR Lab experiment on OpenRLHF ${OPENRLHF_VERSION} (commit ${OPENRLHF_COMMIT}).
# pip install openrlhf[vllm]==${OPENRLHF_VERSION}; ray start --head; then:
# MODEL=... GPUS=8 TIR_SANDBOX_URL=http://HOST:8080/run_code ./run.sh [more flags]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
MODEL="\${MODEL:-${req.model}}"
GPUS="\${GPUS:-8}"
${config.nmax > 0 ? `${SANDBOX_CHECK}\n` : ''}${versionCheck('openrlhf', OPENRLHF_VERSION)}
python3 -m openrlhf.cli.train_ppo_ray \\
${continued(args)}
  "$@"
`;
}

function bundleReadme(req: BundleRequest, trainSize: number, testSize: number): string {
  const engine = ENGINE_RELEASES[req.engine];
  return `# TIR Lab experiment for ${engine}

From ${req.source} (seed ${req.config.seed}, ${req.config.algorithm}, Nmax ${req.config.nmax}, ${req.config.format} format), for ${req.model}.
${trainSize} train and ${testSize} test problems, split as the lab splits them. Every knob is in run.sh;
experiment.json holds the lab's config.

What ${engine} does not reproduce exactly (the lab's docs/scale-out.md has the whole mapping):
${inexactKnobLines(req.engine).join('\n')}

Code calls run where TIR_SANDBOX_URL points: a SandboxFusion server's run_code endpoint
(https://github.com/bytedance/SandboxFusion; its README gives the docker image). run.sh saves the choice to
sandbox.json here, so the engine's workers find it: keep this folder on a filesystem they share.
TIR_ALLOW_UNSANDBOXED=1 runs them in a plain python3 subprocess instead: that is no sandbox, for a quick local check only.

The reward (reward.py) and the tool loop (tir_episode.py) are the lab's, in Python with the standard
library; the lab's tests check them against its own rewards and transcripts. Output past
${req.config.maxOutputChars} characters ends with \`${OUTPUT_TRUNCATED_MARKER}\`.
`;
}

export function clusterBundle(req: BundleRequest, pythonFiles: Record<string, string>): BundleFiles {
  const { config, engine } = req;
  const splits = exportSplits(config, req.trainSize);
  const files: BundleFiles = {};
  for (const name of PYTHON_FILES[engine]) {
    const text = pythonFiles[name];
    if (text === undefined) throw new Error(`the ${engine} export needs ${name}`);
    files[name] = text;
  }
  if (engine === 'verl') {
    files['data/train.parquet'] = verlParquet(verlRows(splits, 'train', config));
    files['data/test.parquet'] = verlParquet(verlRows(splits, 'test', config));
    files['tool_config.yaml'] = verlToolConfig(config);
    files['agent_loop.yaml'] = verlAgentLoopConfig();
    files['run.sh'] = verlRunScript(req);
  } else {
    files['data/train.jsonl'] = jsonLines(openrlhfRows(splits, 'train', config));
    files['data/test.jsonl'] = jsonLines(openrlhfRows(splits, 'test', config));
    files['tir_config.json'] = `${JSON.stringify({ nmax: config.nmax, ...toolLimits(config), sandbox_timeout_ms: config.sandboxTimeoutMs }, null, 2)}\n`;
    files['run.sh'] = openrlhfRunScript(req);
  }
  const experiment = {
    format: BUNDLE_FORMAT,
    engine,
    engineVersion: engine === 'verl' ? VERL_VERSION : OPENRLHF_VERSION,
    engineCommit: engine === 'verl' ? VERL_COMMIT : OPENRLHF_COMMIT,
    source: req.source,
    model: req.model,
    trainSize: splits.train.length,
    testSize: splits.test.length,
    promptTokenBudget: PROMPT_TOKEN_BUDGET,
    config,
  };
  files['experiment.json'] = `${JSON.stringify(experiment, null, 2)}\n`;
  files['README.md'] = bundleReadme(req, splits.train.length, splits.test.length);
  return files;
}
