import { describe, expect, it } from 'vitest';
import { PRESETS } from '../src/core/experiment';
import { choosePreset, createLabStore, notify } from '../src/ui/state/labStore';
import { LAB_PRESETS, labPreset } from '../src/ui/state/presets';
import { defaultUrlState, parseLabUrl, serialiseLabHash, urlProblemsNotice, type UrlState } from '../src/ui/state/urlState';

describe('URL state', () => {
  it('round-trips every property of a changed state through the hash', () => {
    const state: UrlState = {
      preset: 'quick',
      config: {
        ...PRESETS.quick,
        seed: 12345,
        nmax: 4,
        algorithm: 'grpo',
        format: 'retool',
        klEstimator: 'k1',
        learningRate: 3.5e-5,
        temperature: 0.93,
        tierMix: { easy: 0.1, medium: 0.3, hard: 0.6 },
      },
      backend: 'wasm',
      presenter: true,
      hidden: ['sidebar', 'tabs'],
      sweepNmax: [0, 2, 8],
      startFrom: 'coldstart',
    };
    const hash = serialiseLabHash(state);
    const parsed = parseLabUrl('', `#${hash}`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.state).toEqual(state);
    expect(parsed.autostart).toBe(false);
  });

  it('reads the parts a link hides, in one order, and names the ones it does not know', () => {
    const parsed = parseLabUrl('?hide=tabs,sidebar,menu', '');
    expect(parsed.state.hidden).toEqual(['sidebar', 'tabs']);
    expect(parsed.problems).toEqual(['hide: unknown part menu (known: sidebar, latest, tabs, backend)']);
    expect(new URLSearchParams(serialiseLabHash(parsed.state)).get('hide')).toBe('sidebar,tabs');
    expect(new URLSearchParams(serialiseLabHash(defaultUrlState())).has('hide')).toBe(false);
  });

  it('names the shown run, and tells a URL that sets an experiment from one that sets page flags only', () => {
    const hash = serialiseLabHash(defaultUrlState(), 'run-abc-123');
    expect(new URLSearchParams(hash).get('run')).toBe('run-abc-123');
    expect(parseLabUrl('', `#${hash}`)).toMatchObject({ runId: 'run-abc-123', namesSettings: true });
    expect(new URLSearchParams(serialiseLabHash(defaultUrlState())).has('run')).toBe(false);
    expect(parseLabUrl('', '')).toMatchObject({ runId: null, namesSettings: false });
    expect(parseLabUrl('?presenter=1&backend=wasm', '').namesSettings).toBe(false);
    expect(parseLabUrl('?nmax=0', '').namesSettings).toBe(true);
    expect(parseLabUrl('', '#preset=quick').namesSettings).toBe(true);
  });

  it('never writes a value the fields refuse: seed -1, a learning rate that is not a number, a mix of zeros', () => {
    const state = defaultUrlState();
    state.config.seed = -1;
    state.config.learningRate = NaN;
    state.config.kindMix = { arithmetic: 0, compose: 0, search: 0, errorProne: 0, multiStep: 0, chain: 0 };
    state.config.nmax = 4;
    const params = new URLSearchParams(serialiseLabHash(state));
    expect(params.has('seed')).toBe(false);
    expect(params.has('learningRate')).toBe(false);
    expect(params.has('kindMix')).toBe(false);
    expect(params.get('nmax')).toBe('4');
    expect(serialiseLabHash(state)).not.toMatch(/NaN|=-1(&|$)/);
    // Opened, the link gives the preset's values in their place and nothing to complain about.
    const parsed = parseLabUrl('', `#${serialiseLabHash(state)}`);
    expect(parsed.problems).toEqual([]);
    expect(parsed.state.config.seed).toBe(defaultUrlState().config.seed);
    expect(parsed.state.config.learningRate).toBe(defaultUrlState().config.learningRate);
    expect(parsed.state.config.nmax).toBe(4);
  });

  it('writes the seed and every knob, so the link does not depend on preset definitions', () => {
    const hash = serialiseLabHash(defaultUrlState());
    const params = new URLSearchParams(hash);
    expect(params.get('seed')).toBe('1');
    expect(params.get('nmax')).toBe('2');
    expect(params.get('learningRate')).toBe('0.000025');
    expect(params.get('learningRateDecaySteps')).toBe('6');
    expect(params.get('promptSampling')).toBe('stratified');
    expect(params.get('tierMix')).toBe('0.25,0.25,0.5');
    expect(params.get('kindMix')).toBe('0.35,0.15,0.05,0.05,0.15,0.25');
    expect(params.get('sweep')).toBe('0,1,2,4');
    // Defaults of the page-level flags are left out.
    expect(params.has('backend')).toBe(false);
    expect(params.has('presenter')).toBe(false);
  });

  it('reads the query parameters of a link: preset, seed, nmax, backend, autostart, presenter', () => {
    const parsed = parseLabUrl('?preset=no-tool&seed=7&nmax=3&backend=webgpu&autostart=1&presenter=1', '');
    expect(parsed.state.preset).toBe('no-tool');
    expect(parsed.state.config).toEqual({ ...PRESETS['no-tool'], seed: 7, nmax: 3 });
    expect(parsed.state.backend).toBe('webgpu');
    expect(parsed.state.presenter).toBe(true);
    expect(parsed.autostart).toBe(true);
  });

  it('lets the hash win over the query and keeps the query preset for what the hash leaves out', () => {
    const parsed = parseLabUrl('?preset=quick&seed=7', '#seed=9&steps=3');
    expect(parsed.state.preset).toBe('quick');
    expect(parsed.state.config.seed).toBe(9);
    expect(parsed.state.config.steps).toBe(3);
    expect(parsed.state.config.promptsPerStep).toBe(PRESETS.quick.promptsPerStep);
  });

  it('takes the sweep values from the sweep preset', () => {
    const parsed = parseLabUrl('?preset=sweep', '');
    expect(parsed.state.sweepNmax).toEqual(LAB_PRESETS.sweep.sweepNmax);
    expect(parsed.state.config).toEqual(LAB_PRESETS.sweep.config);
  });

  it('ignores what it cannot read and says so, keeping the rest', () => {
    const parsed = parseLabUrl('?preset=nope&backend=tpu', '#seed=abc&nmax=&tierMix=1,2&sweep=1,x&steps=5');
    expect(parsed.state.preset).toBe('classroom');
    expect(parsed.state.backend).toBe('auto');
    expect(parsed.state.config.seed).toBe(PRESETS.classroom.seed);
    expect(parsed.state.config.nmax).toBe(PRESETS.classroom.nmax);
    expect(parsed.state.config.tierMix).toEqual(PRESETS.classroom.tierMix);
    expect(parsed.state.sweepNmax).toEqual([0, 1, 2, 4]);
    expect(parsed.state.config.steps).toBe(5);
    expect(parsed.problems).toEqual([
      "unknown preset 'nope' (kept classroom)",
      'seed=abc is not a number',
      'nmax= is not a number',
      'tierMix=1,2 needs 3 numbers: easy,medium,hard',
      "unknown backend 'tpu' (kept auto)",
      'sweep=1,x: Nmax values must be whole numbers from 0 to 16',
    ]);
  });

  it("refuses Object.prototype's member names as presets, from the URL and from the preset menu", () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
      expect(labPreset(name)).toBeUndefined();
      for (const [search, hash] of [['', `#preset=${name}`], [`?preset=${name}`, '']]) {
        const parsed = parseLabUrl(search, hash);
        expect(parsed.state).toEqual(defaultUrlState());
        expect(parsed.problems).toEqual([`unknown preset '${name}' (kept classroom)`]);
      }
      const store = createLabStore(defaultUrlState());
      choosePreset(store, name);
      expect(store.getState().preset).toBe('classroom');
      expect(store.getState().config).toEqual(defaultUrlState().config);
    }
    expect(labPreset('quick')).toBe(LAB_PRESETS.quick);
  });

  it('reads a kind mix of four or five shares, from a link made before the multi-step or the chain kind, as none of those kinds', () => {
    const parsed = parseLabUrl('', '#kindMix=1,0,0.5,0');
    expect(parsed.problems).toEqual([]);
    expect(parsed.state.config.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0, chain: 0 });
    expect(parseLabUrl('', '#kindMix=1,0,0.5,0,0.3').state.config.kindMix).toEqual({ arithmetic: 1, compose: 0, search: 0.5, errorProne: 0, multiStep: 0.3, chain: 0 });
    expect(parseLabUrl('', '#kindMix=1,0,0').problems).toEqual(['kindMix=1,0,0 needs 6 numbers: arithmetic,compose,search,errorProne,multiStep,chain']);
    expect(parseLabUrl('', '#kindMix=1,0,0,0,0,0,1').problems).toEqual(['kindMix=1,0,0,0,0,0,1 needs 6 numbers: arithmetic,compose,search,errorProne,multiStep,chain']);
  });

  it('says every problem of a link in one notice, so none is dropped past the four notices the lab keeps', () => {
    const { problems } = parseLabUrl('?preset=nope&backend=tpu', '#seed=abc&nmax=&tierMix=1,2&sweep=1,x');
    expect(problems).toHaveLength(6);
    const store = createLabStore(defaultUrlState());
    notify(store, 'info', urlProblemsNotice(problems)!);
    const notices = store.getState().notices;
    expect(notices).toHaveLength(1);
    expect(notices[0].text).toBe(`The link had 6 settings the lab could not use and ignored: ${problems.join('; ')}`);
    for (const problem of problems) expect(notices[0].text).toContain(problem);
    expect(urlProblemsNotice(['seed=abc is not a number'])).toBe('The link had a setting the lab could not use and ignored: seed=abc is not a number');
    expect(urlProblemsNotice([])).toBeNull();
  });

  // Issue 25: Number() read `steps=0x10` as 16 steps, and the link said nothing, as the CLI's --steps did.
  it('reads numbers only when written in decimal, as the CLI does, and names each it could not read', () => {
    const parsed = parseLabUrl('', '#seed=0b101&steps=0x10&nmax=%205&learningRate=Infinity&tierMix=0x1,1,1&sweep=0o1,2');
    expect(parsed.state).toEqual(defaultUrlState());
    expect(parsed.problems).toEqual([
      'seed=0b101 is not a number',
      'steps=0x10 is not a number',
      'nmax= 5 is not a number',
      'learningRate=Infinity is not a number',
      'tierMix=0x1,1,1 needs 3 numbers: easy,medium,hard',
      'sweep=0o1,2: Nmax values must be whole numbers from 0 to 16',
    ]);
    // An arm twice would train the same run twice under one name.
    expect(parseLabUrl('', '#sweep=1,1').problems).toEqual(['sweep=1,1: each Nmax value once']);
    const decimal = parseLabUrl('', '#seed=7&steps=16&learningRate=2E-4&tierMix=1,.5,0&sweep=0,2');
    expect(decimal.problems).toEqual([]);
    expect(decimal.state.config).toMatchObject({ seed: 7, steps: 16, learningRate: 2e-4, tierMix: { easy: 1, medium: 0.5, hard: 0 } });
    expect(decimal.state.sweepNmax).toEqual([0, 2]);
  });

  it('keeps an out-of-range number, for the field to refuse with its message', () => {
    const parsed = parseLabUrl('?nmax=99', '');
    expect(parsed.problems).toEqual([]);
    expect(parsed.state.config.nmax).toBe(99);
  });

  it('does not share the preset objects it starts from', () => {
    const parsed = parseLabUrl('', '#tierMix=1,0,0');
    expect(parsed.state.config.tierMix).toEqual({ easy: 1, medium: 0, hard: 0 });
    expect(PRESETS.classroom.tierMix).toEqual({ easy: 0.25, medium: 0.25, hard: 0.5 });
  });
});
