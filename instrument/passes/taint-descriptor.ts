// The taint pass's descriptor (pass-contract.ts), kept apart from taint.ts so the pass's own
// modules stay about taint: what it reserves, that it runs last, and how the pipeline calls it.
import type { PassDescriptor } from '../pass-contract.js';
import { applyTaint, taintRegions, type TaintLayout } from './taint.js';

export const taintPass: PassDescriptor<TaintLayout> = {
  name: 'taint',
  describe: 'dynamic taint: which marked parameters reach each loop exit condition and branch',
  requires: ['site-analysis', 'reserved-memory', 'program-expressions'],
  uses: ['instrumentation-locals'],
  provides: [],
  order: { last: 'it flattens code the other passes cannot follow, and must see their code to leave it alone' },
  reserves: ['taint', 'taint-contexts', 'shadow'],
  siteRecord: 'TaintLayout: shadow placement, sink and context-tree regions, loop, branch and import sink sites, argument-label and shadow globals',
  regions: (options) => taintRegions(options.taint?.sinkBytes ?? 4 << 20, options.taint?.granularity, options.taint?.contextBytes ?? options.contextBytes),
  apply: ({ module, analysis, layout, options, program, instrumentationLocals }) =>
    applyTaint(module, analysis, layout, options.taint, program && { expressions: program, locals: instrumentationLocals }),
};
