/**
 * verl's RL data (verl 0.6.1, docs/preparation/prepare_data.rst): one parquet row per problem with
 * data_source, prompt (chat messages), ability, reward_model {style, ground_truth}, extra_info
 * {split, index, family, tier, need_tools_kwargs, tools_kwargs} and agent_name (the exported loop). Written with
 * hyparquet-writer and an explicit schema: prompt is a standard three-level LIST of structs, the
 * others nested structs, as pandas and Hugging Face datasets write them.
 */
import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import type { ExperimentConfig } from '../experiment';
import { enginePrompt } from './enginePrompt';
import type { ExportSplits } from './exportSplits';

export const VERL_DATA_SOURCE = 'tir_lab';
export const VERL_TOOL_NAME = 'code_interpreter';
/** The exported agent loop (verl_agent_loop.py, registered by agent_loop.yaml) that runs the lab's episode. */
export const VERL_AGENT_LOOP = 'tir_agent';

export interface VerlRow {
  data_source: string;
  prompt: { role: string; content: string }[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    split: string;
    index: number;
    family: string;
    tier: string;
    need_tools_kwargs: boolean;
    tools_kwargs: { code_interpreter: { create_kwargs: { ground_truth: string } } };
  };
  agent_name: string;
}

export function verlRows(splits: ExportSplits, split: 'train' | 'test', config: Pick<ExperimentConfig, 'format' | 'nmax'>): VerlRow[] {
  return splits[split].map((p, index) => ({
    data_source: VERL_DATA_SOURCE,
    prompt: [{ role: 'user', content: enginePrompt(p, config) }],
    ability: 'math',
    reward_model: { style: 'rule', ground_truth: String(p.answer) },
    extra_info: {
      split,
      index,
      family: p.family,
      tier: p.tier,
      need_tools_kwargs: config.nmax > 0,
      // verl passes create_kwargs to the tool's create(); ours ignores them (the reward reads reward_model).
      tools_kwargs: { [VERL_TOOL_NAME]: { create_kwargs: { ground_truth: String(p.answer) } } } as VerlRow['extra_info']['tools_kwargs'],
    },
    agent_name: VERL_AGENT_LOOP,
  }));
}

const text = (name: string) => ({ name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const });
const group = (name: string, children: number, extra: object = {}) => ({ name, num_children: children, repetition_type: 'OPTIONAL' as const, ...extra });

/** The parquet schema, depth first (parquet's flattened SchemaElement list). */
function verlSchema() {
  return [
    { name: 'root', num_children: 6 },
    text('data_source'),
    group('prompt', 1, { converted_type: 'LIST' as const }),
    { name: 'list', num_children: 1, repetition_type: 'REPEATED' as const },
    group('element', 2),
    text('role'),
    text('content'),
    text('ability'),
    group('reward_model', 2),
    text('style'),
    text('ground_truth'),
    group('extra_info', 6),
    text('split'),
    { name: 'index', type: 'INT64' as const, repetition_type: 'OPTIONAL' as const },
    text('family'),
    text('tier'),
    { name: 'need_tools_kwargs', type: 'BOOLEAN' as const, repetition_type: 'OPTIONAL' as const },
    group('tools_kwargs', 1),
    group(VERL_TOOL_NAME, 1),
    group('create_kwargs', 1),
    text('ground_truth'),
    text('agent_name'),
  ];
}

export function verlParquet(rows: VerlRow[]): Uint8Array {
  const writer = new ByteWriter();
  const column = <K extends keyof VerlRow>(name: K) => ({ name, data: rows.map((r) => r[name]) });
  parquetWrite({
    writer,
    columnData: [
      column('data_source'),
      column('prompt'),
      column('ability'),
      column('reward_model'),
      { name: 'extra_info', data: rows.map((r) => ({ ...r.extra_info, index: BigInt(r.extra_info.index) })) },
      column('agent_name'),
    ],
    schema: verlSchema(),
    createdBy: 'tir-lab export',
  });
  return new Uint8Array(writer.getBuffer());
}
