// The instrumentation passes by mode name, and how a composition of them (`--mode loops,taint`) is
// ordered and checked against their descriptors (pass-contract.ts): a pass runs after the passes
// its `order.after` names and after those providing what it requires or uses, a `last` pass after
// all others; the modes keep the order given where nothing constrains it. A composition that cannot
// work (two passes that must both run last, a cycle, a requirement nothing before it provides, two
// passes reserving the same memory region) is rejected with one message saying why.
import { PIPELINE_INPUTS, type PassDescriptor, type PassInput } from './pass-contract.js';
import { loopsPass } from './passes/loops.js';
import { taintPass } from './passes/taint.js';
import { measurePass } from './passes/measure.js';
import { samplePass } from './passes/sample.js';
import { entryBitmapPass } from './passes/entry-bitmap.js';
import { entryWorkPass } from './passes/entry-work.js';

export class PassRegistry {
  private readonly byName = new Map<string, PassDescriptor>();

  constructor(descriptors: readonly PassDescriptor[]) {
    for (const descriptor of descriptors) {
      if (this.byName.has(descriptor.name))
        throw new Error(`internal: two instrumentation passes are named '${descriptor.name}'`);
      this.byName.set(descriptor.name, descriptor);
    }
  }

  /** Mode names in registration order. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): PassDescriptor | undefined {
    return this.byName.get(name);
  }

  /** `loops,taint` → the modes as given (duplicates dropped), after checking that they compose. */
  parse(text: string): string[] {
    const modes = text
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    this.descriptorsOf(modes);
    if (modes.length === 0) throw new Error('no instrumentation mode given');
    const unique = [...new Set(modes)];
    this.compose(unique);
    return unique;
  }

  /** The passes of `modes` in the order they run; throws one message when they cannot compose. */
  compose(modes: readonly string[]): PassDescriptor[] {
    const chosen = this.descriptorsOf([...new Set(modes)]);
    const label = (passes: readonly PassDescriptor[]) => passes.map((p) => p.name).join(',');
    const refuse = (why: string) => new Error(`modes ${label(chosen)} cannot be composed: ${why}`);
    const lasts = chosen.filter((p) => p.order.last !== undefined);
    if (lasts.length > 1) throw refuse(`${lasts.map((p) => `${p.name} must run last (${p.order.last})`).join('; ')}`);
    const regionOwner = new Map<string, string>();
    for (const pass of chosen) {
      for (const region of pass.reserves) {
        const owner = regionOwner.get(region);
        if (owner !== undefined) throw refuse(`${owner} and ${pass.name} both reserve the memory region '${region}'`);
        regionOwner.set(region, pass.name);
      }
    }
    const ordered = orderPasses(chosen, refuse);
    const available = new Set<PassInput>(PIPELINE_INPUTS);
    for (const pass of ordered) {
      for (const input of pass.requires) {
        if (available.has(input)) continue;
        const providers = [...this.byName.values()]
          .filter((other) => other.provides.some((product) => product === input))
          .map((other) => other.name);
        throw refuse(
          `${pass.name} requires ${input}, which no mode before it provides${providers.length > 0 ? ` (${providers.join(' or ')} does)` : ''}`,
        );
      }
      for (const product of pass.provides) available.add(product);
    }
    return ordered;
  }

  private descriptorsOf(modes: readonly string[]): PassDescriptor[] {
    return modes.map((mode) => {
      const descriptor = this.byName.get(mode);
      if (!descriptor) throw new Error(`unknown mode '${mode}' (available: ${this.names().join(', ')})`);
      return descriptor;
    });
  }
}

/**
 * A stable topological order: repeatedly the first pass (in the order given) whose predecessors
 * have all run; a `last` pass only once it is the only one left.
 */
function orderPasses(chosen: readonly PassDescriptor[], refuse: (why: string) => Error): PassDescriptor[] {
  const before = new Map<PassDescriptor, PassDescriptor[]>();
  for (const pass of chosen) {
    const needs = new Set<PassInput>([...pass.requires, ...(pass.uses ?? [])]);
    before.set(
      pass,
      chosen.filter(
        (other) =>
          other !== pass &&
          ((pass.order.after ?? []).includes(other.name) || other.provides.some((product) => needs.has(product))),
      ),
    );
  }
  const ordered: PassDescriptor[] = [];
  const remaining = [...chosen];
  while (remaining.length > 0) {
    const next = remaining.find(
      (pass) =>
        before.get(pass)!.every((other) => ordered.includes(other)) &&
        (pass.order.last === undefined || remaining.length === 1),
    );
    if (!next) {
      const waits = remaining.map((pass) => {
        const pending = before
          .get(pass)!
          .filter((other) => !ordered.includes(other))
          .map((other) => other.name);
        const constraints = [
          ...(pending.length > 0 ? [`runs after ${pending.join(' and ')}`] : []),
          ...(pass.order.last !== undefined ? ['must run last'] : []),
        ];
        return `${pass.name} ${constraints.join(' and ')}`;
      });
      throw refuse(`no order satisfies ${waits.join('; ')}`);
    }
    ordered.push(next);
    remaining.splice(remaining.indexOf(next), 1);
  }
  return ordered;
}

/** The passes Taintlens ships, in the order `availableModes()` lists them. */
export const passRegistry = new PassRegistry([
  loopsPass,
  taintPass,
  measurePass,
  samplePass,
  entryBitmapPass,
  entryWorkPass,
]);
