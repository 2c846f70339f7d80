/**
 * Where the base model comes from: pretrain one here on the synthetic corpus (math Q/A and notebook
 * snippets, no tool-use transcripts), watching its loss fall. Runs start from the shipped base
 * model unless the experiment panel picks this one.
 */
import { useMemo, useState } from 'react';
import type uPlot from 'uplot';
import { useLab, useLabState } from '../LabContext';
import { downloadText } from '../files/download';
import { encodeCheckpointFile } from '../../core/archive/checkpointFile';
import { lineSeries, PALETTE, stepChartOptions, UPlotChart } from '../charts/UPlotChart';
import type { LabState } from '../state/labStore';
import { NumberField } from './NumberField';
import { ProgressBar } from './Progress';

const BOUNDS = { steps: [1, 100_000], seed: [0, 2 ** 31 - 1], toolPrior: [0, 1] } as const;

function fieldError(name: keyof typeof BOUNDS, value: number): string | undefined {
  const [min, max] = BOUNDS[name];
  if (!Number.isFinite(value)) return `${name} must be a number`;
  if (name !== 'toolPrior' && !Number.isInteger(value)) return `${name} must be a whole number`;
  return value < min || value > max ? `${name} must be between ${min} and ${max}` : undefined;
}

export function PretrainPanel() {
  const { controller } = useLab();
  const [options, setOptions] = useState({ steps: 300, seed: 1, toolPrior: 0.01 });
  const progress = useLabState((s) => s.progress.pretrain);
  const pretrained = useLabState((s) => s.pretrainedBase);
  const busy = useLabState((s) => s.busy);
  const ready = useLabState((s) => s.worker === 'ready');
  const training = useLabState((s) => Object.values(s.runs).some((r) => r.status === 'training'));
  const errors = { steps: fieldError('steps', options.steps), seed: fieldError('seed', options.seed), toolPrior: fieldError('toolPrior', options.toolPrior) };
  const valid = !errors.steps && !errors.seed && !errors.toolPrior;
  const chart = useMemo(
    () => ({
      options: stepChartOptions([lineSeries('loss', PALETTE.purple)], { label: 'nats/char' }),
      data: (s: LabState): uPlot.AlignedData => [s.pretrainLoss.step, s.pretrainLoss.loss],
      version: (s: LabState) => s.pretrainLoss.revision,
    }),
    [],
  );

  return (
    <section className="panel pretrain" aria-labelledby="pretrain-title">
      <h2 id="pretrain-title">Pretrain a base model</h2>
      <p className="hint">
        The shipped base model was pretrained on a synthetic “web”: Q/A and notebook snippets of all six kinds of question, with code in a
        small share of answers (the tool prior). RL can only amplify what the base model already does now and then. Pretraining here
        makes a smaller lesson of it: arithmetic Q/A only, in rows of 128 characters.
      </p>
      <div className="knobs">
        <NumberField label="Steps" value={options.steps} error={errors.steps} onChange={(v) => setOptions({ ...options, steps: v })} />
        <NumberField label="Seed" value={options.seed} error={errors.seed} onChange={(v) => setOptions({ ...options, seed: v })} />
        <NumberField label="Tool prior" help="Share of Q/A answers that begin with a code block" value={options.toolPrior} error={errors.toolPrior} onChange={(v) => setOptions({ ...options, toolPrior: v })} />
      </div>
      <div className="buttons">
        <button type="button" data-testid="pretrain-button" disabled={!valid || !ready || busy !== null || training} onClick={() => void controller.pretrain(options)}>
          Pretrain
        </button>
        {pretrained && (
          <button
            type="button"
            onClick={() => downloadText(`base-pretrained-${pretrained.steps}-steps.json`, encodeCheckpointFile(pretrained.checkpoint, null), 'application/json')}
          >
            Download this base model
          </button>
        )}
      </div>
      {progress && <ProgressBar label="Pretraining" {...progress} testId="pretrain-progress" />}
      <UPlotChart testId="chart-pretrain-loss" title="Pretraining loss" options={chart.options} data={chart.data} version={chart.version} height={150} />
    </section>
  );
}
