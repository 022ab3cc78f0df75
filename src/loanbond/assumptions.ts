import type { Assumption } from '../http/assumptions.js';

/** Decisions of the loanbond interface where the specification is silent (README, assumptions table). */
export const assumptions: Assumption[] = [];
