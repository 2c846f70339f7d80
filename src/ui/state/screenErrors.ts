/**
 * configErrors' messages in the screen's words: the engine names a knob by its config key (the
 * CLI's flags and the run files use those), the lab by the label beside its field. So
 * "learningRate must be between 1e-7 and 0.1" reads "“Learning rate” must be between 0.0000001
 * and 0.1", and a kind of problem is named as its share's field is.
 */
import { EXPERIMENT_PROPERTIES, type ExperimentConfig } from '../../core/experiment';

type Key = keyof ExperimentConfig;

const LABELS = new Map<string, string>(EXPERIMENT_PROPERTIES.map((p) => [p.key, `“${p.label}”`]));
const PART_LABELS = new Map<string, string>(EXPERIMENT_PROPERTIES.flatMap((p) => (p.kind === 'mix' ? p.parts.filter(([part, label]) => part !== label) : [])));

/**
 * Keys written in camelCase (filterHigh, errorProne) are code names wherever they occur; a key that
 * is a plain word (seed, steps) is one only where it opens the message, as configErrors writes it.
 */
const CODE_NAMES = new RegExp(`\\b(${[...LABELS.keys(), ...PART_LABELS.keys()].filter((key) => /[A-Z]/.test(key)).join('|')})\\b`, 'g');

/** 1e-7 as 0.0000001: a class reads decimals, not exponents. */
const EXPONENT = /\b\d+(?:\.(\d+))?e-(\d+)\b/g;

function plainDecimal(figure: string, fraction: string | undefined, exponent: string): string {
  return Number(figure).toFixed(Number(exponent) + (fraction?.length ?? 0));
}

export function screenMessage(key: Key, message: string): string {
  const opened = message.startsWith(`${key} `) ? `${LABELS.get(key) ?? key}${message.slice(key.length)}` : message;
  return opened
    .replace(CODE_NAMES, (name) => LABELS.get(name) ?? PART_LABELS.get(name) ?? name)
    .replace(EXPONENT, plainDecimal);
}

/** Each field's message in the screen's words. */
export function screenErrors(errors: Partial<Record<Key, string>>): Partial<Record<Key, string>> {
  return Object.fromEntries(Object.entries(errors).map(([key, message]) => [key, screenMessage(key as Key, message)])) as Partial<Record<Key, string>>;
}
