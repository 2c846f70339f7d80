/**
 * "Export for a cluster" in the built lab (Debian Chromium): the knobs on screen downloaded as a
 * zip for verl (parquet read back with hyparquet) and for OpenRLHF (JSONL, the agent's settings),
 * each with the lab's Python, run.sh and the config the page holds.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { parquetReadObjects } from 'hyparquet';
import { PRESETS } from '../src/core/experiment';
import { testSet } from '../src/core/tasks/splits';

async function downloadZip(page: Page): Promise<{ name: string; files: Record<string, Uint8Array> }> {
  const download = page.waitForEvent('download');
  await page.getByTestId('cluster-export-button').click();
  const file = await download;
  return { name: file.suggestedFilename(), files: unzipSync(new Uint8Array(readFileSync((await file.path())!))) };
}

test('the knobs on screen as a verl zip and an OpenRLHF zip', async ({ page }) => {
  await page.goto('/?preset=quick&seed=5#nmax=1&temperature=1');
  const panel = page.getByTestId('cluster-export-panel');
  await expect(panel.getByTestId('cluster-export-button')).toBeEnabled({ timeout: 60_000 });
  const expected = { ...PRESETS.quick, seed: 5, nmax: 1, temperature: 1 };

  const verl = await downloadZip(page);
  expect(verl.name).toBe('quick-verl.zip');
  expect(Object.keys(verl.files).sort()).toEqual(
    ['README.md', 'agent_loop.yaml', 'data/test.parquet', 'data/train.parquet', 'experiment.json', 'reward.py', 'run.sh', 'tir_episode.py', 'tir_sandbox.py', 'tool_config.yaml', 'verl_agent_loop.py', 'verl_tool.py'].map((f) => `quick-verl/${f}`),
  );
  const experiment = JSON.parse(strFromU8(verl.files['quick-verl/experiment.json']));
  expect(experiment).toMatchObject({ engine: 'verl', model: 'Qwen/Qwen2.5-0.5B', trainSize: 60 * 8, testSize: testSet().length });
  expect(experiment.config).toEqual(expected);
  const test = verl.files['quick-verl/data/test.parquet'];
  const rows = (await parquetReadObjects({ file: test.buffer.slice(test.byteOffset, test.byteOffset + test.byteLength) as ArrayBuffer })) as {
    prompt: { role: string; content: string }[];
    reward_model: { ground_truth: string };
  }[];
  expect(rows.map((r) => r.reward_model.ground_truth)).toEqual(testSet().map((p) => String(p.answer)));
  expect(rows[0].prompt[0].content).toMatch(/You may run Python once/);
  const verlRun = strFromU8(verl.files['quick-verl/run.sh']);
  expect(verlRun).toContain('actor_rollout_ref.rollout.multi_turn.max_user_turns=1');
  expect(verlRun).toContain('actor_rollout_ref.rollout.temperature=1');
  expect(strFromU8(verl.files['quick-verl/reward.py'])).toContain('def compute_score(data_source, solution_str, ground_truth, extra_info=None');

  await panel.getByTestId('cluster-engine').selectOption('openrlhf');
  await panel.getByTestId('cluster-model').fill('');
  await expect(panel.getByTestId('cluster-export-button')).toBeDisabled();
  await panel.getByTestId('cluster-model').fill('Qwen/Qwen2.5-1.5B');
  const openrlhf = await downloadZip(page);
  expect(openrlhf.name).toBe('quick-openrlhf.zip');
  const train = strFromU8(openrlhf.files['quick-openrlhf/data/train.jsonl']).trim().split('\n').map((l) => JSON.parse(l));
  expect(train).toHaveLength(60 * 8);
  expect(Object.keys(train[0]).slice(0, 2)).toEqual(['prompt', 'label']);
  expect(JSON.parse(strFromU8(openrlhf.files['quick-openrlhf/tir_config.json']))).toMatchObject({ nmax: 1, format: 'zerotir', max_output_chars: 64 });
  expect(strFromU8(openrlhf.files['quick-openrlhf/run.sh'])).toContain('MODEL="${MODEL:-Qwen/Qwen2.5-1.5B}"');
  expect(strFromU8(openrlhf.files['quick-openrlhf/agent_func.py'])).toContain('class AgentExecutor(MultiTurnAgentExecutor)');
});
