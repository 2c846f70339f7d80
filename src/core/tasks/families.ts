/**
 * Every problem family by name (TensorFlow Playground's datasets map), and the families of each
 * kind. Operands are non-negative and answers stay far below 2^53, so JS integer arithmetic equals
 * Python's.
 */
import { ARITHMETIC_FAMILIES } from './arithmeticFamilies';
import { CHAIN_FAMILIES } from './chainFamilies';
import { COMPOSE_FAMILIES } from './composeFamilies';
import { ERROR_PRONE_FAMILIES } from './errorProneFamilies';
import { MULTI_STEP_FAMILIES } from './multiStepFamilies';
import type { Kind, ProblemGenerator } from './problem';
import { SEARCH_FAMILIES } from './searchFamilies';

export const FAMILIES = {
  ...ARITHMETIC_FAMILIES,
  ...COMPOSE_FAMILIES,
  ...SEARCH_FAMILIES,
  ...ERROR_PRONE_FAMILIES,
  ...MULTI_STEP_FAMILIES,
  ...CHAIN_FAMILIES,
} satisfies Record<string, ProblemGenerator>;

export type FamilyName = keyof typeof FAMILIES;

function names<T extends object>(families: T): (keyof T & FamilyName)[] {
  return Object.keys(families) as (keyof T & FamilyName)[];
}

/**
 * The families of each kind, in a fixed order. Arithmetic is drawn by tier (TIER_FAMILIES); the
 * other kinds uniformly over their families.
 */
export const KIND_FAMILIES: Record<Kind, readonly FamilyName[]> = {
  arithmetic: names(ARITHMETIC_FAMILIES),
  compose: names(COMPOSE_FAMILIES),
  search: names(SEARCH_FAMILIES),
  errorProne: names(ERROR_PRONE_FAMILIES),
  multiStep: names(MULTI_STEP_FAMILIES),
  chain: names(CHAIN_FAMILIES),
};

export { TIER_FAMILIES } from './arithmeticFamilies';
