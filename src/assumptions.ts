// Every sandbox decision, gathered from the control plane and the four interfaces.
import { assumptions as bookkeeping } from './bookkeeping/assumptions.js';
import type { Assumption } from './http/assumptions.js';
import { assumptions as loanbond } from './loanbond/assumptions.js';
import { assumptions as receivables } from './receivables/assumptions.js';
import { assumptions as registry } from './registry/assumptions.js';
import { assumptions as sandbox } from './http/sandbox-assumptions.js';

export const allAssumptions: readonly Assumption[] = [
  ...sandbox,
  ...bookkeeping,
  ...registry,
  ...receivables,
  ...loanbond,
];
