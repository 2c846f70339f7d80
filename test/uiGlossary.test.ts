/** The glossary: every word issue 26 found unexplained has a plain entry, and no entry leans on a word without one. */
import { describe, expect, it } from 'vitest';
import { GLOSSARY, glossaryEntries } from '../src/ui/glossary';

/** The terms the main screen and slow motion use (issue 26, point 5), then the other panels', as the glossary spells them. */
const ON_SCREEN = [
  'TIR', 'outcome reward', 'backend', 'WASM', 'probe', 'SIMD build', 'tok/s', 'gen / exec / upd', 'Fork', 'ZeroTIR', 'ReTool',
  'cold start', 'ablation', 'fences', 'base model', 'policy tokens', 'environment tokens', 'checkpoint', 'CSV', 'saved @N',
  'critic', 'gradient norm', 'KL', 'k1 / k3', 'PPO', 'Reinforce++', 'GRPO', 'advantage', 'baseline', 'group filter', 'Nmax',
  // The rollout inspector's, the evaluation's and the sweep's words.
  'rollout', 'pass@1', 'top-p', 'self-correction', 'depth', 'standard error',
];

/** Words a class does not know: an explanation may use one only if the glossary explains it too. */
const JARGON: [RegExp, string][] = [
  [/\bKL\b/, 'KL'],
  [/\bcritic/i, 'critic'],
  [/\bbaseline/i, 'baseline'],
  [/\bcheckpoint/i, 'checkpoint'],
  [/\btokens?\b/i, 'token'],
  [/\bsandbox/i, 'sandbox'],
  [/\bbackend/i, 'backend'],
  [/\bprobe\b/i, 'probe'],
  [/\bcold start/i, 'cold start'],
  [/\bWASM\b/, 'WASM'],
  [/\bgroup\b/i, 'group'],
];
const UNEXPLAINED = [/value head/i, /\bAdam\b/, /\bGAE\b/, /\blogits?\b/i, /log-prob/i, /\bgradient\b(?! norm)/i, /\bloss\b/i, /\bsurrogate/i];

describe('glossary', () => {
  it('explains every term issue 26 found unexplained on the main screen and in slow motion', () => {
    const missing = ON_SCREEN.filter((term) => !Object.hasOwn(GLOSSARY, term));
    expect(missing).toEqual([]);
  });

  it('explains in plain words: no entry uses jargon the glossary lacks, or explains a word by itself', () => {
    for (const [term, explains] of Object.entries(GLOSSARY)) {
      for (const word of UNEXPLAINED) expect(explains, term).not.toMatch(word);
      for (const [pattern, entry] of JARGON) if (pattern.test(explains)) expect(Object.hasOwn(GLOSSARY, entry), `${term} uses ${entry}`).toBe(true);
      expect(explains.length, term).toBeLessThanOrEqual(220);
      expect(explains, term).toMatch(/^[A-Z0-9].*[.:]$/);
    }
  });

  it('lists the entries alphabetically, capitals not counted, each once', () => {
    const terms = glossaryEntries().map(([term]) => term);
    expect(terms).toHaveLength(Object.keys(GLOSSARY).length);
    expect(terms.indexOf('ablation')).toBe(0);
    expect(terms.indexOf('advantage')).toBe(1);
    expect(terms.indexOf('backend')).toBeLessThan(terms.indexOf('base model'));
    expect(terms.indexOf('CPU')).toBeLessThan(terms.indexOf('critic'));
    expect(terms.at(-1)).toBe('ZeroTIR');
  });
});
