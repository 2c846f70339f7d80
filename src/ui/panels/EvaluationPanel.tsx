/**
 * Held-out evaluation as ReTool reports it, for any saved run, the run loaded now, or a start
 * model: k answers per problem of the evaluation set with nucleus sampling, pass@1 by tier and the code-use
 * figures, one row per inference Nmax — `npm run eval`'s report, downloadable as the same JSON.
 * Settings are checked at their fields; Evaluate waits for the worker, Cancel stops it.
 */
import { useMemo, useState } from 'react';
import type { EvalReport } from '../../core/eval/evalReport';
import { pairedDifference, type PairedDifference } from '../../core/metrics/pairedDifference';
import { MAX_DEPTH } from '../../core/tasks/problem';
import { evalSet } from '../../core/tasks/splits';
import { DEFAULT_PASS_AT_ONE, MAX_K, parseNmaxList, passAtOneSettingsErrors } from '../../trainerWorker/evaluationRequest';
import { useLab, useLabShallow, useLabState } from '../LabContext';
import { evaluationOptions, parseSourceKey, resultOf, sourceKey, type EvaluationSource } from '../controller/evaluationJob';
import { downloadText } from '../files/download';
import { exportFileName } from '../../core/archive/runExport';
import { KIND_LABELS } from '../state/knobs';
import { selectedRun, type LabState } from '../state/labStore';
import { NumberField } from './NumberField';
import { ProgressBar } from './Progress';

/** What the evaluation answers, counted from the set the worker evaluates (passAtOneJob.ts), so it cannot go stale. */
const EVALUATION_SET_CONTENTS = (() => {
  const problems = evalSet();
  const byKind = KIND_LABELS.map(([kind, label]) => `${problems.filter((p) => p.kind === kind).length} ${label}`);
  return `${problems.length} problems of the evaluation set (${byKind.join(', ')})`;
})();

type BlockFigure = Exclude<
  keyof EvalReport['blocks'][number],
  'nmax' | 'samples' | 'byTier' | 'byKind' | 'byFamily' | 'byDepth' | 'perProblem' | 'callsHistogram' | 'singleCallShareByDepth' | 'callsPerResponseByDepth'
>;

/**
 * The table's figure columns after pass@1 and the tiers: the report's field (the header's tooltip,
 * as `npm run eval` writes it), its digits, and a header in plain words.
 */
const FIGURES: [BlockFigure, number, string][] = [
  ['codeRatio', 2, 'answers with code'],
  ['codeLines', 2, 'code lines'],
  ['correctCodeCount', 0, 'calls that ran'],
  ['codePassRate', 2, 'last call ran'],
  ['invocationPosition', 2, 'first call at'],
  ['callsPerResponse', 2, 'calls per answer'],
  ['singleCallShare', 2, 'right with one call'],
  ['selfCorrections', 0, 'self-corrections'],
  ['selfCorrectionShare', 2, 'answers self-correcting'],
];

function fmt(x: number | null, digits: number): string {
  return x === null || !Number.isFinite(x) ? '–' : x.toFixed(digits);
}

/** The source shown when none is picked: the shown run if it can be evaluated, else the start model of the knobs. */
function defaultSource(state: LabState): string {
  const run = selectedRun(state);
  if (run && (run.id === state.loadedRunId || run.checkpointStep !== null)) return sourceKey({ kind: 'run', runId: run.id });
  return sourceKey({ kind: 'start', start: state.startFrom });
}

export function EvaluationPanel() {
  const { controller } = useLab();
  // Strings, so the shallow comparison sees an unchanged list as unchanged.
  const optionLines = useLabShallow((s) => evaluationOptions(s).map((o) => `${o.key}\n${o.label}`));
  const options = optionLines.map((line) => {
    const [optionKey, label] = line.split('\n');
    return { key: optionKey, label };
  });
  const fallback = useLabState(defaultSource);
  const [picked, setPicked] = useState<string | null>(null);
  const key = picked !== null && options.some((o) => o.key === picked) ? picked : fallback;
  const source: EvaluationSource | null = parseSourceKey(key);
  const result = useLabState((s) => resultOf(s, source));
  const running = useLabState((s) => s.passAtOne.running);
  const progress = useLabState((s) => s.progress.evaluate);
  const ready = useLabState((s) => s.worker === 'ready');
  const busy = useLabState((s) => s.busy);
  const training = useLabState((s) => s.runs[s.loadedRunId ?? '']?.status === 'training');

  const [nmaxText, setNmaxText] = useState(DEFAULT_PASS_AT_ONE.nmaxList.join(', '));
  const [k, setK] = useState(DEFAULT_PASS_AT_ONE.k);
  const [temperature, setTemperature] = useState(DEFAULT_PASS_AT_ONE.temperature);
  const [topP, setTopP] = useState(DEFAULT_PASS_AT_ONE.topP);
  const [seed, setSeed] = useState(DEFAULT_PASS_AT_ONE.seed);
  const settings = useMemo(() => ({ nmaxList: parseNmaxList(nmaxText), k, temperature, topP, seed }), [nmaxText, k, temperature, topP, seed]);
  const errors = passAtOneSettingsErrors(settings);
  const valid = Object.keys(errors).length === 0;
  const canStart = ready && busy === null && !training && valid && source !== null;

  const download = (report: EvalReport) =>
    downloadText(exportFileName(`${report.checkpoint}-pass-at-1`, 'json'), `${JSON.stringify(report, null, 2)}\n`, 'application/json');

  return (
    <section className="panel evaluation" aria-labelledby="evaluation-title" data-testid="evaluation-panel">
      <h2 id="evaluation-title">Held-out evaluation (pass@1)</h2>
      <p className="hint">
        ReTool’s protocol, as <code>npm run eval</code>: k answers to each of the {EVALUATION_SET_CONTENTS}, sampled with
        top-p; a problem’s pass@1 is the share of its k answers that are right, averaged over problems; one row per inference Nmax.
      </p>
      <div className="evaluation-controls">
        <div className="field evaluation-source">
          <label htmlFor="evaluation-source">Model</label>
          <select id="evaluation-source" data-testid="evaluation-source" value={key} onChange={(e) => setPicked(e.target.value)}>
            {options.map((option) => (
              <option key={option.key} value={option.key}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className={`field${errors.nmaxList ? ' field-invalid' : ''}`}>
          <label htmlFor="evaluation-nmax" title="Inference budgets: most executed code calls per answer.">
            Nmax values
          </label>
          <input id="evaluation-nmax" data-testid="evaluation-nmax" value={nmaxText} onChange={(e) => setNmaxText(e.target.value)} aria-invalid={errors.nmaxList ? true : undefined} />
          {errors.nmaxList && (
            <span className="field-error" role="alert" data-testid="evaluation-nmax-error">
              {errors.nmaxList}
            </span>
          )}
        </div>
        <NumberField label="k (answers per problem)" help={`1 to ${MAX_K}; 1 or 2 for a quick look in class, 8 as ReTool.`} value={k} error={errors.k} testId="evaluation-k" onChange={setK} />
        <NumberField label="Temperature" value={temperature} error={errors.temperature} testId="evaluation-temperature" onChange={setTemperature} />
        <NumberField label="Top-p" help="Nucleus sampling: only the most probable tokens holding this share of the mass." value={topP} error={errors.topP} testId="evaluation-top-p" onChange={setTopP} />
        <NumberField label="Seed" value={seed} error={errors.seed} testId="evaluation-seed" onChange={setSeed} />
      </div>
      <div className="buttons">
        <button
          type="button"
          className="primary"
          data-testid="evaluation-start"
          disabled={!canStart}
          title={training ? 'Pause training first' : undefined}
          onClick={() => source && void controller.evaluatePassAtOne(source, settings)}
        >
          {running ? 'Evaluating…' : 'Evaluate'}
        </button>
        {running && (
          <button type="button" data-testid="evaluation-cancel" disabled={running.cancelling} onClick={() => void controller.cancelEvaluation()}>
            {running.cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
        {result && (
          <button type="button" data-testid="evaluation-download" onClick={() => download(result.report)}>
            Download JSON
          </button>
        )}
      </div>
      {running && progress && <ProgressBar label="Evaluating" {...progress} testId="evaluation-progress" />}
      {result && <ResultTable report={result.report} />}
    </section>
  );
}

/** A row's pass@1 gain over the row above, paired over their problems; null without both rows' per-problem scores. */
function gainOverRowAbove(blocks: EvalReport['blocks'], i: number): PairedDifference | null {
  const [above, row] = [blocks[i - 1]?.perProblem, blocks[i].perProblem];
  return above && row && above.length === row.length ? pairedDifference(above, row) : null;
}

function ResultTable({ report }: { report: EvalReport }) {
  return (
    <div className="evaluation-result">
      <table data-testid="evaluation-table">
        <caption>
          {report.checkpoint} · format {report.format} · k {report.k} · temperature {report.temperature} · top-p {report.topP} · seed {report.seed} ·{' '}
          {report.wallSeconds.toFixed(0)} s
        </caption>
        <thead>
          <tr>
            <th>Nmax</th>
            <th>pass@1</th>
            <th title="standard error of pass@1 over problems">± s.e.</th>
            <th title="pass@1 minus the row above's, problem by problem">gain</th>
            <th title="standard error of the gain, paired over the problems both rows scored">± s.e. of gain</th>
            <th>easy</th>
            <th>medium</th>
            <th>hard</th>
            {KIND_LABELS.map(([kind, label]) => (
              <th key={kind}>{label}</th>
            ))}
            {FIGURES.map(([name, , label]) => (
              <th key={name} title={`${name} in the report`}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.blocks.map((block, i) => {
            const gain = gainOverRowAbove(report.blocks, i);
            return (
              <tr key={block.nmax} data-testid="evaluation-row">
                <th>{block.nmax}</th>
                <td>{fmt(block['pass@1'], 3)}</td>
                <td>{fmt(block.standardError, 3)}</td>
                <td>{fmt(gain?.difference ?? null, 3)}</td>
                <td>{fmt(gain?.standardError ?? null, 3)}</td>
                <td>{fmt(block.byTier.easy, 2)}</td>
                <td>{fmt(block.byTier.medium, 2)}</td>
                <td>{fmt(block.byTier.hard, 2)}</td>
                {KIND_LABELS.map(([kind]) => (
                  <td key={kind}>{fmt(block.byKind[kind], 2)}</td>
                ))}
                {FIGURES.map(([name, digits]) => (
                  <td key={name}>{fmt(block[name], digits)}</td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
      <DepthTable report={report} />
    </div>
  );
}

/**
 * pass@1, calls per answer and the single-call share of right answers by the problems' depth (the
 * calls a step-by-step solution takes), for the depths some block measured: whether deeper
 * questions get more calls or one program, and whether they are answered. None for a report from
 * before the figures.
 */
function DepthTable({ report }: { report: EvalReport }) {
  const depths = Array.from({ length: MAX_DEPTH }, (_, d) => d + 1).filter((depth) => report.blocks.some((b) => b.callsPerResponseByDepth[depth - 1] !== null));
  if (depths.length === 0) return null;
  const heads = (figure: string) =>
    depths.map((depth) => (
      <th key={`${figure}-${depth}`} scope="col">
        {depth}
      </th>
    ));
  return (
    <table className="evaluation-depths" data-testid="evaluation-depth-table">
      <caption>By depth: the calls a step-by-step solution takes (a chain’s divisions; multi-step 2; other kinds 1)</caption>
      <thead>
        <tr>
          <th rowSpan={2}>Nmax</th>
          <th colSpan={depths.length} title="byDepth in the report">
            pass@1, depth
          </th>
          <th colSpan={depths.length} title="callsPerResponseByDepth in the report">
            calls per answer, depth
          </th>
          <th colSpan={depths.length} title="singleCallShareByDepth in the report">
            right with one call, depth
          </th>
        </tr>
        <tr>
          {heads('pass')}
          {heads('calls')}
          {heads('single')}
        </tr>
      </thead>
      <tbody>
        {report.blocks.map((block) => (
          <tr key={block.nmax} data-testid="evaluation-depth-row">
            <th>{block.nmax}</th>
            {depths.map((depth) => (
              <td key={`pass-${depth}`}>{fmt(block.byDepth[depth - 1], 2)}</td>
            ))}
            {depths.map((depth) => (
              <td key={`calls-${depth}`}>{fmt(block.callsPerResponseByDepth[depth - 1], 2)}</td>
            ))}
            {depths.map((depth) => (
              <td key={`single-${depth}`}>{fmt(block.singleCallShareByDepth[depth - 1], 2)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
