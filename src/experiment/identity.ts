// A campaign's identity, kept beside its measurements (`<output>.campaign.json`) so that a resumed
// campaign only appends to a file measured the same way: the same module (by content), the same
// export or command line, the same parameters bound to the same arguments, repetitions and metrics.
// The grid's values may grow between runs (new points are measured, old ones kept); the
// measurements file itself stays plain Extra-P JSON Lines.
import { existsSync } from 'node:fs';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import { sha256Of } from '../util/hash.js';
import type { VariedParameter } from './grid.js';

export const CAMPAIGN_SCHEMA = 'taintlens/campaign@1';

export interface CampaignIdentity {
  schema: typeof CAMPAIGN_SCHEMA;
  module: { file: string; sha256: string };
  invoke: string | null;
  args: string[];
  argv: string[];
  parameters: VariedParameter[];
  repeat: number;
  metrics: string[];
  /** Measurement mode and its region functions (absent in records of plain `measure` runs: none). */
  mode?: string;
  regions?: string[] | null;
  /** SPMD ranks when fixed (a varied rank count is one of the parameters). */
  ranks?: number;
}

export interface CampaignDefinition {
  file: string;
  bytes: Uint8Array;
  invoke: string | null;
  baseArgs: string[];
  baseArgv: string[];
  parameters: VariedParameter[];
  repeat: number;
  metrics: string[];
  mode?: string;
  regions?: string[] | null;
  ranks?: number;
}

export function campaignFile(output: string): string {
  return `${output}.campaign.json`;
}

export function identityOf(input: CampaignDefinition): CampaignIdentity {
  return {
    schema: CAMPAIGN_SCHEMA,
    module: { file: input.file, sha256: sha256Of(input.bytes) },
    invoke: input.invoke ?? defaultInvoke(input.bytes),
    args: markVaried(input.baseArgs, input.parameters, 'arg'),
    argv: markVaried(input.baseArgv, input.parameters, 'argv'),
    parameters: input.parameters,
    repeat: input.repeat,
    metrics: [...input.metrics].sort(),
    mode: input.mode ?? 'none',
    regions: input.regions ?? null,
    ...(input.ranks !== undefined ? { ranks: input.ranks } : {}),
  };
}

/** What runs without --invoke (see runtime/run.ts): a command's _start (null), else `run`. */
function defaultInvoke(bytes: Uint8Array): string | null {
  const exports = WebAssembly.Module.exports(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
  return exports.some((e) => e.name === '_start') ? null : 'run';
}

/** The base arguments with each varied position shown as <name>: what a varied value was there does not matter. */
function markVaried(base: string[], parameters: VariedParameter[], kind: 'arg' | 'argv'): string[] {
  const out = [...base];
  for (const parameter of parameters) {
    if (parameter.target.kind !== kind) continue;
    while (out.length <= parameter.target.index) out.push('0');
    out[parameter.target.index] = `<${parameter.name}>`;
  }
  return out;
}

export function readIdentity(output: string): CampaignIdentity | null {
  const path = campaignFile(output);
  if (!existsSync(path)) return null;
  let value: unknown;
  try {
    value = JSON.parse(readInputText(path));
  } catch {
    throw fileError(
      path,
      'not valid JSON: this campaign record is damaged; delete it and the measurements to start over',
    );
  }
  if (typeof value !== 'object' || value === null || (value as { schema?: unknown }).schema !== CAMPAIGN_SCHEMA) {
    throw fileError(path, `not a campaign record (${CAMPAIGN_SCHEMA})`);
  }
  return value as CampaignIdentity;
}

/** Records the campaign; the values of each parameter are those measured so far and now. */
export function writeIdentity(output: string, identity: CampaignIdentity, previous: CampaignIdentity | null): void {
  const parameters = identity.parameters.map((parameter) => {
    const before = previous?.parameters.find((p) => p.name === parameter.name)?.values ?? [];
    return { ...parameter, values: [...new Set([...before, ...parameter.values])] };
  });
  writeJsonAtomic(campaignFile(output), { ...identity, parameters });
}

/** The first way `wanted` differs from the recorded campaign, in the user's terms; null when it matches. */
export function identityDifference(recorded: CampaignIdentity, wanted: CampaignIdentity): string | null {
  const binding = (parameters: VariedParameter[]) =>
    parameters
      .map(
        (p) =>
          `${p.name}=${p.target.kind}${p.target.kind === 'argv' ? p.target.index + 1 : p.target.index}${p.ranks ? '+ranks' : ''}`,
      )
      .join(' ') || 'none';
  const list = (values: string[]) => (values.length ? values.join(',') : 'none');
  const checks: Array<[string, string, string]> = [
    [
      'module',
      `${recorded.module.file} (sha256 ${recorded.module.sha256.slice(0, 12)})`,
      `${wanted.module.file} (sha256 ${wanted.module.sha256.slice(0, 12)})`,
    ],
    ['--invoke', recorded.invoke ?? '_start', wanted.invoke ?? '_start'],
    ['--args', list(recorded.args), list(wanted.args)],
    ['argv after --', list(recorded.argv), list(wanted.argv)],
    ['parameters (--vary)', binding(recorded.parameters), binding(wanted.parameters)],
    ['--repeat', String(recorded.repeat), String(wanted.repeat)],
    ['--metrics', list(recorded.metrics), list(wanted.metrics)],
    ['mode', recorded.mode ?? 'none', wanted.mode ?? 'none'],
    ['regions', list(recorded.regions ?? []), list(wanted.regions ?? [])],
  ];
  for (const [what, there, here] of checks) {
    if (what === 'module' ? recorded.module.sha256 !== wanted.module.sha256 : there !== here) {
      return `${what}: ${there} there, ${here} here`;
    }
  }
  return null;
}
