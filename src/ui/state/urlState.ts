/**
 * The lab's shareable state and its URL form, in one place (TensorFlow Playground's state.ts): the
 * experiment's one list of properties (EXPERIMENT_PROPERTIES), serialised to and from the URL hash, so a link
 * reproduces a run, seed included. Query parameters (`?preset=quick&seed=3&nmax=0&backend=wasm
 * &autostart=1&presenter=1&start=coldstart`) are read once at load; the hash wins where both name a
 * property. `start=coldstart` without a `format` sets the format the cold-start model writes.
 * `run=<id>` names the run the page shows, so a reload shows that run and not merely the newest.
 * `hide=sidebar,tabs` hides parts of the page, as Playground's URL hides controls for a lesson.
 */
import { configErrors, decimalNumber, EXPERIMENT_PROPERTIES, nmaxListError, type ExperimentConfig, type ExperimentProperty } from '../../core/experiment';
import { withLaterKindZeros } from '../../core/tasks/splits';
import type { BackendChoice } from '../../trainerWorker/protocol';
import { DEFAULT_LAB_PRESET, DEFAULT_SWEEP_NMAX, LAB_PRESETS, labPreset } from './presets';
import { isStartFrom, START_MODELS, type StartFrom } from '../../core/archive/startFrom';

/** The parts of the page a link can hide: the knobs and runs, the newest answer, the tabs, the backend badge. */
export const HIDABLE_PARTS = ['sidebar', 'latest', 'tabs', 'backend'] as const;
export type HidablePart = (typeof HIDABLE_PARTS)[number];

export interface UrlState {
  preset: string;
  config: ExperimentConfig;
  backend: BackendChoice;
  presenter: boolean;
  /** Parts of the page hidden by the link (`hide=`), in HIDABLE_PARTS order. */
  hidden: HidablePart[];
  sweepNmax: number[];
  /** The model RL starts from (startFrom.ts). */
  startFrom: StartFrom;
}

export interface ParsedUrl {
  state: UrlState;
  /** `autostart=1`: press Train once the worker is ready. Read from the query only, never written. */
  autostart: boolean;
  /** `run=<id>`: the stored run to show. */
  runId: string | null;
  /** The URL sets a preset or a knob, so it describes an experiment, not only page flags. */
  namesSettings: boolean;
  /** What in the URL was not understood and was ignored, for a notice. */
  problems: string[];
}

export const BACKEND_CHOICES: BackendChoice[] = ['auto', 'webgpu', 'webgl', 'wasm', 'cpu'];

export function copyConfig(config: ExperimentConfig): ExperimentConfig {
  return { ...config, tierMix: { ...config.tierMix }, kindMix: { ...config.kindMix } };
}

export function defaultUrlState(): UrlState {
  const preset = LAB_PRESETS[DEFAULT_LAB_PRESET];
  return {
    preset: DEFAULT_LAB_PRESET,
    config: copyConfig(preset.config),
    backend: 'auto',
    presenter: false,
    hidden: [],
    sweepNmax: [...(preset.sweepNmax ?? DEFAULT_SWEEP_NMAX)],
    startFrom: 'base',
  };
}

/**
 * The hash (without '#') for a state: every valid config property, so the link does not depend on
 * presets. A value the field refuses (seed -1, a learning rate that is not a number) is left out,
 * so a shared link never carries it; the preset's value stands in for it when the link is opened.
 */
export function serialiseLabHash(state: UrlState, shownRunId: string | null = null): string {
  const params = new URLSearchParams();
  if (shownRunId !== null) params.set('run', shownRunId);
  params.set('preset', state.preset);
  const invalid = configErrors(state.config);
  for (const property of EXPERIMENT_PROPERTIES) {
    if (invalid[property.key] !== undefined) continue;
    const value = state.config[property.key];
    if (property.kind === 'mix') params.set(property.key, property.parts.map(([part]) => (value as Record<string, number>)[part]).join(','));
    else params.set(property.key, String(value));
  }
  if (state.backend !== 'auto') params.set('backend', state.backend);
  if (state.presenter) params.set('presenter', '1');
  if (state.hidden.length > 0) params.set('hide', state.hidden.join(','));
  params.set('sweep', state.sweepNmax.join(','));
  if (state.startFrom !== 'base') params.set('start', state.startFrom);
  return params.toString().replace(/%2C/g, ',');
}

/** The state a URL describes: its preset, then the query's overrides, then the hash's. */
export function parseLabUrl(search: string, hash: string): ParsedUrl {
  const query = new URLSearchParams(search.replace(/^\?/, ''));
  const fromHash = new URLSearchParams(hash.replace(/^#/, ''));
  const problems: string[] = [];
  const read = (name: string) => fromHash.get(name) ?? query.get(name);

  const state = defaultUrlState();
  const presetName = read('preset');
  if (presetName !== null) {
    const preset = labPreset(presetName);
    if (preset === undefined) problems.push(`unknown preset '${presetName}' (kept ${DEFAULT_LAB_PRESET})`);
    else {
      state.preset = presetName;
      state.config = copyConfig(preset.config);
      if (preset.sweepNmax) state.sweepNmax = [...preset.sweepNmax];
    }
  }
  for (const params of [query, fromHash]) {
    for (const property of EXPERIMENT_PROPERTIES) {
      const raw = params.get(property.key);
      if (raw !== null) applyProperty(state.config, property, raw, problems);
    }
  }
  const backend = read('backend');
  if (backend !== null) {
    if ((BACKEND_CHOICES as string[]).includes(backend)) state.backend = backend as BackendChoice;
    else problems.push(`unknown backend '${backend}' (kept auto)`);
  }
  const presenter = read('presenter');
  if (presenter !== null) state.presenter = isTrue(presenter);
  const hide = read('hide');
  if (hide !== null) {
    const names = hide.split(',').filter((name) => name !== '');
    const unknown = names.filter((name) => !(HIDABLE_PARTS as readonly string[]).includes(name));
    if (unknown.length > 0) problems.push(`hide: unknown part${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${HIDABLE_PARTS.join(', ')})`);
    state.hidden = HIDABLE_PARTS.filter((part) => names.includes(part));
  }
  const sweep = read('sweep');
  if (sweep !== null) {
    const values = parseNumberList(sweep);
    // An item that is not a number at all is refused as a value out of bounds would be.
    const error = nmaxListError(values ?? [Number.NaN]);
    if (error === null) state.sweepNmax = values!;
    else problems.push(`sweep=${sweep}: ${error}`);
  }
  const start = read('start');
  if (start !== null) {
    if (!isStartFrom(start)) problems.push(`unknown start '${start}' (kept base)`);
    else {
      state.startFrom = start;
      if (read('format') === null) state.config.format = START_MODELS[start].format;
    }
  }
  const settingNames = ['preset', ...EXPERIMENT_PROPERTIES.map((p) => p.key)];
  const namesSettings = [query, fromHash].some((params) => settingNames.some((name) => params.has(name)));
  return { state, autostart: isTrue(query.get('autostart') ?? ''), runId: read('run'), namesSettings, problems };
}

/**
 * All of a link's problems in one notice, or null when it has none: one notice each would leave
 * only the last few on screen (the store keeps four), and the others would be dropped unsaid.
 */
export function urlProblemsNotice(problems: string[]): string | null {
  if (problems.length === 0) return null;
  return `The link had ${problems.length === 1 ? 'a setting' : `${problems.length} settings`} the lab could not use and ignored: ${problems.join('; ')}`;
}

function applyProperty(config: ExperimentConfig, property: ExperimentProperty, raw: string, problems: string[]): void {
  const fields = config as unknown as Record<string, unknown>;
  if (property.kind === 'number') {
    // An out-of-range number is kept: the field shows configErrors' message and nothing is sent.
    // Decimal only, as the CLI reads it: Number() made `steps=0x10` 16 steps.
    const value = decimalNumber(raw);
    if (value === null) problems.push(`${property.key}=${raw} is not a number`);
    else fields[property.key] = value;
  } else if (property.kind === 'choice') {
    // configErrors names the allowed values when the string is not one of them.
    fields[property.key] = raw;
  } else {
    // A link made before the multiStep or the chain kind has four or five shares: those kinds then get none.
    const written = parseNumberList(raw);
    const shares = written !== null && property.key === 'kindMix' ? (withLaterKindZeros(written) as number[]) : written;
    const parts = property.parts.map(([part]) => part);
    if (shares === null || shares.length !== parts.length) problems.push(`${property.key}=${raw} needs ${parts.length} numbers: ${parts.join(',')}`);
    else fields[property.key] = Object.fromEntries(parts.map((part, i) => [part, shares[i]]));
  }
}

function parseNumberList(raw: string): number[] | null {
  const values = raw.split(',').map(decimalNumber);
  return values.some((v) => v === null) ? null : (values as number[]);
}

function isTrue(raw: string): boolean {
  return raw === '1' || raw === 'true';
}
