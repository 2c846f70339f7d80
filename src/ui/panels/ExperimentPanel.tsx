/**
 * The experiment: a preset, then every knob. Invalid values are shown at their field with
 * configErrors' message; the controller refuses to send them.
 */
import { useMemo } from 'react';
import { configErrors, type ExperimentConfig } from '../../core/experiment';
import { useLab, useLabState } from '../LabContext';
import { KNOBS, TIER_KEYS, type Knob } from '../state/knobs';
import { choosePreset, selectedRun, setKnob, type LabStore } from '../state/labStore';
import { LAB_PRESETS } from '../state/presets';
import { NumberField } from './NumberField';

export function ExperimentPanel() {
  const { store } = useLab();
  const preset = useLabState((s) => s.preset);
  const config = useLabState((s) => s.config);
  const baseModel = useLabState((s) => s.baseModel);
  const pretrained = useLabState((s) => s.pretrainedBase);
  const runConfig = useLabState((s) => selectedRun(s)?.config ?? null);
  const runStatus = useLabState((s) => selectedRun(s)?.status ?? null);
  const errors = useMemo(() => configErrors(config), [config]);
  const differs = runConfig !== null && runStatus !== 'finished' && JSON.stringify(runConfig) !== JSON.stringify(config);

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
        <div className="field">
          <label htmlFor="base-model">Base model</label>
          <select
            id="base-model"
            value={baseModel}
            data-testid="base-model-select"
            onChange={(e) => store.setState({ baseModel: e.target.value as 'shipped' | 'pretrained' })}
          >
            <option value="shipped">shipped base model</option>
            <option value="pretrained" disabled={!pretrained}>
              {pretrained ? `pretrained here (${pretrained.steps} steps)` : 'pretrained here (none yet)'}
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
          <fieldset className={`field tier-mix${errors.tierMix ? ' field-invalid' : ''}`}>
            <legend>Problem mix (easy / medium / hard)</legend>
            <div className="tier-inputs">
              {TIER_KEYS.map((tier) => (
                <NumberField
                  key={tier}
                  label={tier}
                  value={config.tierMix[tier]}
                  testId={`knob-tier-${tier}`}
                  onChange={(v) => setKnob(store, 'tierMix', { ...store.getState().config.tierMix, [tier]: v })}
                />
              ))}
            </div>
            {errors.tierMix && <span className="field-error" role="alert">{errors.tierMix}</span>}
          </fieldset>
        </div>
      </details>
      {differs && (
        <p className="hint" data-testid="knobs-differ">
          The knobs differ from the shown run. Train continues the run as it was; <b>Reset</b> restarts it with these knobs,{' '}
          <b>Fork</b> branches it with them.
        </p>
      )}
    </section>
  );
}

function KnobField({ knob, config, error, store }: { knob: Knob; config: ExperimentConfig; error?: string; store: LabStore }) {
  if (knob.kind === 'choice') {
    return (
      <div className={`field${error ? ' field-invalid' : ''}`}>
        <label htmlFor={`knob-${knob.key}`} title={knob.help}>
          {knob.label}
        </label>
        <select
          id={`knob-${knob.key}`}
          data-testid={`knob-${knob.key}`}
          value={config[knob.key]}
          onChange={(e) => setKnob(store, knob.key, e.target.value as ExperimentConfig[typeof knob.key])}
        >
          {knob.options.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        {error && <span className="field-error" role="alert">{error}</span>}
      </div>
    );
  }
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
