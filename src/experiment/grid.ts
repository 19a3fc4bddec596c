// The parameter grid of an experiment: which parameter goes to which argument, and its values.
// `--vary n=arg0:16,32,64` varies argument 0 of the export; `--vary p=argv1:2,4,8` argv[1] of a
// WASI command; `--vary p=ranks:2,4,8` the number of SPMD ranks (src/runtime/spmd). The grid is the
// cartesian product, in the order the parameters were given.
import { UserError } from '../util/errors.js';

export interface VariedParameter {
  name: string;
  target: { kind: 'arg' | 'argv' | 'ranks'; index: number };
  values: number[];
  /** An argument that is also the SPMD rank count (spec: `"ranks": "{p}"` beside `"-i", "{p}"`). */
  ranks?: true;
}

/** A point of the parameter grid: one value per varied parameter (the model's Point holds the repetitions measured there). */
export type GridPoint = Record<string, number>;

export function parseVary(spec: string): VariedParameter {
  const match = /^([A-Za-z_][\w.]*)=(?:(arg|argv)(\d+)|(ranks)):(.+)$/.exec(spec.trim());
  if (!match)
    throw new UserError(
      `--vary '${spec}': expected NAME=argK:v1,v2,..., NAME=argvK:v1,v2,... or NAME=ranks:v1,v2,...`,
      2,
    );
  const values = match[5]!.split(',').map((v) => Number(v.trim()));
  if (values.some((v) => !Number.isFinite(v))) throw new UserError(`--vary '${spec}': values must be numbers`, 2);
  if (new Set(values).size !== values.length) throw new UserError(`--vary '${spec}': values repeat`, 2);
  if (match[4] && values.some((v) => !Number.isInteger(v) || v < 1))
    throw new UserError(`--vary '${spec}': rank counts must be whole numbers ≥ 1`, 2);
  if (match[4]) return { name: match[1]!, target: { kind: 'ranks', index: 0 }, values };
  const position = Number(match[3]);
  if (match[2] === 'arg') return { name: match[1]!, target: { kind: 'arg', index: position }, values };
  // argvK numbers as C does (argv1 is the first word after --), like taint's --param; kept 0-based inside.
  if (position < 1)
    throw new UserError(`--vary '${spec}': argv0 is the program's name; argv1 is the first word after --`, 2);
  return { name: match[1]!, target: { kind: 'argv', index: position - 1 }, values };
}

export function gridPoints(parameters: VariedParameter[]): GridPoint[] {
  let points: GridPoint[] = [{}];
  for (const parameter of parameters) {
    points = points.flatMap((point) => parameter.values.map((value) => ({ ...point, [parameter.name]: value })));
  }
  return points;
}

/** The export arguments (or argv) for one point: the base list with the varied positions filled in. */
export function argumentsAt(
  point: GridPoint,
  parameters: VariedParameter[],
  kind: 'arg' | 'argv',
  base: string[],
): string[] {
  const out = [...base];
  for (const parameter of parameters) {
    if (parameter.target.kind !== kind) continue;
    while (out.length <= parameter.target.index) out.push('0');
    out[parameter.target.index] = String(point[parameter.name]);
  }
  return out;
}

/** The SPMD rank count at a point: the `ranks` parameter's value there, else `fixed` (--ranks). */
export function ranksAt(point: GridPoint, parameters: VariedParameter[], fixed?: number): number | undefined {
  const varied = parameters.find((p) => p.target.kind === 'ranks' || p.ranks);
  return varied ? point[varied.name] : fixed;
}

export function pointKey(point: GridPoint): string {
  return JSON.stringify(
    Object.keys(point)
      .sort()
      .map((k) => [k, point[k]]),
  );
}
