/**
 * The experiment: a preset, the start model, then every knob. Invalid values are shown at their
 * field with configErrors' message (and a format that does not fit the start model, with why);
 * the controller refuses to send them.
 */
import { useMemo } from 'react';
import { configErrors, EXPERIMENT_PROPERTIES, type ExperimentConfig } from '../../core/experiment';
import { useLab, useLabState } from '../LabContext';
import { choiceOptions, KIND_LABELS, KNOBS, mixLegend, TIER_KEYS, type Knob } from '../state/knobs';
import { choosePreset, chooseStart, selectedRun, setKnob, type LabStore } from '../state/labStore';
import { screenErrors } from '../state/screenErrors';
import { LAB_PRESETS } from '../state/presets';
import { FORMAT_LABELS, START_FROM_CHOICES, START_MODELS, startFormatError, type StartFrom } from '../../core/archive/startFrom';
import { useFieldHelp } from './FieldHelp';
import { NumberField } from './NumberField';
import { Term } from './Term';

const START_FROM_HELP =
  'Which model the practice starts from: the base model, which has never been shown a question answered by running code and using its output (ZeroTIR), or the base model after a first lesson on worked answers that use code (ReTool’s cold start).';

export function ExperimentPanel() {
  const { store } = useLab();
  const startHelp = useFieldHelp('Start from', START_FROM_HELP, 'start-from');
  const preset = useLabState((s) => s.preset);
  const config = useLabState((s) => s.config);
  const baseModel = useLabState((s) => s.baseModel);
  const pretrained = useLabState((s) => s.pretrainedBase);
  const runConfig = useLabState((s) => selectedRun(s)?.config ?? null);
  const runStatus = useLabState((s) => selectedRun(s)?.status ?? null);
  const startFrom = useLabState((s) => s.startFrom);
  const runStart = useLabState((s) => selectedRun(s)?.startFrom ?? null);
  const startError = startFormatError(startFrom, config.format);
  const errors = useMemo(() => {
    const found = screenErrors(configErrors(config));
    return startError && !found.format ? { ...found, format: startError } : found;
  }, [config, startError]);
  const differs = runConfig !== null && runStatus !== 'finished' && (JSON.stringify(runConfig) !== JSON.stringify(config) || runStart !== startFrom);

  return (
    <section className="panel experiment" aria-labelledby="experiment-title">
      <h2 id="experiment-title">Experiment</h2>
      <div className="field">
        <label htmlFor="preset-select">Preset</label>
        <select id="preset-select" data-testid="preset-select" value={preset} onChange={(e) => choosePreset(store, e.target.value)}>
          {Object.entries(LAB_PRESETS).map(([name, p]) => (
            <option key={name} value={name}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <div className="knobs">
        {KNOBS.filter((k) => k.main).map((knob) => (
          <KnobField key={knob.key} knob={knob} config={config} error={errors[knob.key]} store={store} />
        ))}
        <div className={`field start-from${rowOf(START_FROM_CHOICES.map((start) => START_MODELS[start].label))}${startError ? ' field-invalid' : ''}`}>
          <span className="field-label">
            <label htmlFor="start-from">Start from</label>
            {startHelp.toggle}
          </span>
          <select id="start-from" data-testid="start-from-select" value={startFrom} onChange={(e) => chooseStart(store, e.target.value as StartFrom)}>
            {START_FROM_CHOICES.map((start) => (
              <option key={start} value={start}>
                {START_MODELS[start].label}
              </option>
            ))}
          </select>
          {startError ? (
            <span className="field-error" role="alert" data-testid="start-from-error">
              {startError}
            </span>
          ) : (
            <span className="field-note" data-testid="start-from-note">
              {sentence(START_MODELS[startFrom].why)}, so the tool format is {FORMAT_LABELS[config.format]}.
            </span>
          )}
          {startHelp.text}
        </div>
        <div className={`field${rowOf(BASE_MODEL_LABELS)}`}>
          <label htmlFor="base-model">
            <Term term="base model">Base model</Term>
          </label>
          <select
            id="base-model"
            value={baseModel}
            data-testid="base-model-select"
            disabled={startFrom !== 'base'}
            onChange={(e) => store.setState({ baseModel: e.target.value as 'shipped' | 'pretrained' })}
          >
            <option value="shipped">{BASE_MODEL_LABELS[0]}</option>
            <option value="pretrained" disabled={!pretrained}>
              {pretrained ? `pretrained here (${pretrained.steps} steps)` : BASE_MODEL_LABELS[1]}
            </option>
          </select>
        </div>
      </div>
      <details className="more-knobs">
        <summary>More knobs</summary>
        <div className="knobs">
          {KNOBS.filter((k) => !k.main).map((knob) => (
            <KnobField key={knob.key} knob={knob} config={config} error={errors[knob.key]} store={store} />
          ))}
          <MixFieldset
            mix="tierMix"
            legend={mixLegend('tierMix')}
            parts={TIER_KEYS.map((tier) => [tier, tier])}
            testPrefix="knob-tier"
            config={config}
            error={errors.tierMix}
            store={store}
          />
          <MixFieldset
            mix="kindMix"
            legend={mixLegend('kindMix')}
            parts={KIND_LABELS}
            testPrefix="knob-kind"
            config={config}
            error={errors.kindMix}
            store={store}
          />
        </div>
      </details>
      {differs && (
        <p className="hint" data-testid="knobs-differ">
          The knobs differ from the shown run. Train continues the run as it was; <b>Reset</b> restarts it with these knobs,{' '}
          <b>
            <Term term="Fork" />
          </b>{' '}
          branches it with them.
        </p>
      )}
    </section>
  );
}

type Mix = 'tierMix' | 'kindMix';

/** One share per part of a mix (tiers, kinds of problem), the mix's error under them. */
function MixFieldset<M extends Mix>(props: {
  mix: M;
  legend: string;
  parts: readonly (readonly [keyof ExperimentConfig[M] & string, string])[];
  testPrefix: string;
  config: ExperimentConfig;
  error?: string;
  store: LabStore;
}) {
  const { mix, legend, parts, testPrefix, config, error, store } = props;
  const shares = config[mix] as Record<string, number>;
  const { toggle, text } = useFieldHelp(legend, EXPERIMENT_PROPERTIES.find((p) => p.key === mix)?.help, testPrefix);
  return (
    <fieldset className={`field tier-mix${error ? ' field-invalid' : ''}`}>
      <legend>
        {legend} {toggle}
      </legend>
      <div className="tier-inputs">
        {parts.map(([part, label]) => (
          <NumberField
            key={part}
            label={label}
            value={shares[part]}
            testId={`${testPrefix}-${part}`}
            onChange={(v) => setKnob(store, mix, { ...store.getState().config[mix], [part]: v } as ExperimentConfig[M])}
          />
        ))}
      </div>
      {error && <span className="field-error" role="alert">{error}</span>}
      {text}
    </fieldset>
  );
}

function KnobField({ knob, config, error, store }: { knob: Knob; config: ExperimentConfig; error?: string; store: LabStore }) {
  if (knob.kind === 'choice') return <ChoiceField knob={knob} config={config} error={error} store={store} />;
  return (
    <NumberField
      label={knob.label}
      help={knob.help}
      value={config[knob.key]}
      error={error}
      testId={knob.testId ?? `knob-${knob.key}`}
      onChange={(v) => setKnob(store, knob.key, v)}
    />
  );
}

function ChoiceField({ knob, config, error, store }: { knob: Extract<Knob, { kind: 'choice' }>; config: ExperimentConfig; error?: string; store: LabStore }) {
  const { toggle, text } = useFieldHelp(knob.label, knob.help, `knob-${knob.key}`);
  return (
    <div className={`field${rowOf(knob.options.map(([, label]) => label))}${error ? ' field-invalid' : ''}`}>
      <span className="field-label">
        <label htmlFor={`knob-${knob.key}`}>{knob.label}</label>
        {toggle}
      </span>
      <select
        id={`knob-${knob.key}`}
        data-testid={`knob-${knob.key}`}
        value={config[knob.key]}
        onChange={(e) => setKnob(store, knob.key, e.target.value as ExperimentConfig[typeof knob.key])}
      >
        {choiceOptions(knob.options, config[knob.key]).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {error && <span className="field-error" role="alert">{error}</span>}
      {text}
    </div>
  );
}

const BASE_MODEL_LABELS = ['shipped base model', 'pretrained here (none yet)'];

/**
 * Half the panel's width shows about 14 characters of a menu's choice beside its arrow; a menu
 * with a longer choice takes a row of its own (' full-row'), so the choice is read whole.
 */
const HALF_ROW_CHARACTERS = 14;

function rowOf(choices: string[]): string {
  return choices.some((choice) => choice.length > HALF_ROW_CHARACTERS) ? ' full-row' : '';
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
