// Reads the taint report (`taintlens taint --json`, schema taintlens/taint@1 or @2) tolerantly: unknown
// fields are ignored, optional parts may be missing, and only what the modeler uses is validated.
import { readInputText } from '../util/read-file.js';
import { fileError } from '../util/errors.js';
import { parseJson } from './json.js';
import { schemaId } from '../util/schema.js';
import {
  parseDependency,
  type TaintViewBranch,
  type TaintViewFunction,
  type TaintViewLoop,
  type TaintView,
} from '../model/prior.js';

export function readTaintReport(file: string): TaintView {
  const text = readInputText(file);
  return parseTaintReport(parseJson(text, file), file);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

export function parseTaintReport(json: unknown, source: string): TaintView {
  if (!isObject(json)) throw fileError(source, 'not a taint report: expected a JSON object');
  const schema = json.schema;
  if (schema !== undefined) {
    if (typeof schema !== 'string' || !schema.startsWith('taintlens/taint@')) {
      throw fileError(source, `not a taint report (schema ${JSON.stringify(schema)}, expected "${schemaId('taint')}")`);
    }
    // Version 2 added per-context call paths, per-exit parameters and timing; the fields read here are unchanged.
    const understood = [schemaId('taint', 1), schemaId('taint', 2)];
    if (!understood.includes(schema))
      throw fileError(
        source,
        `unsupported taint report version ${schema} (this reader understands ${understood.join(' and ')})`,
      );
  }
  const parameters = json.parameters === undefined ? [] : stringList(json.parameters);
  if (!parameters) throw fileError(source, '"parameters" must be a list of names');
  if (!Array.isArray(json.functions)) throw fileError(source, '"functions" must be a list (is this a taint report?)');

  const functions = new Map<string, TaintViewFunction>();
  json.functions.forEach((entry, i) => {
    const where = `functions[${i}]`;
    if (!isObject(entry)) throw fileError(source, `${where}: expected an object`);
    if (typeof entry.name !== 'string' || entry.name === '')
      throw fileError(source, `${where}: "name" must be a non-empty string`);
    const params = entry.params === undefined || entry.params === null ? [] : stringList(entry.params);
    if (!params) throw fileError(source, `${where} (${entry.name}): "params" must be a list of names`);
    const dependency = entry.dependency ?? null;
    if (dependency !== null && typeof dependency !== 'string') {
      throw fileError(source, `${where} (${entry.name}): "dependency" must be a string or null`);
    }
    const pruned = entry.pruned ?? null;
    if (pruned !== null && typeof pruned !== 'string')
      throw fileError(source, `${where} (${entry.name}): "pruned" must be a string or null`);
    let monomials: string[][] | null = null;
    if (dependency !== null && dependency.trim() !== '') {
      try {
        monomials = parseDependency(dependency, parameters);
      } catch (error) {
        throw fileError(source, `${where} (${entry.name}): ${(error as Error).message}`);
      }
    }
    if (functions.has(entry.name)) {
      // Several entries of one name (overloads, several modules): the union of their dependencies.
      const previous = functions.get(entry.name)!;
      functions.set(entry.name, {
        name: entry.name,
        params: [...new Set([...previous.params, ...params])],
        dependency: [previous.dependency, dependency].filter((d) => d !== null).join(' + ') || null,
        monomials: previous.monomials || monomials ? [...(previous.monomials ?? []), ...(monomials ?? [])] : null,
        pruned: previous.pruned !== null && pruned !== null ? previous.pruned : null,
      });
      return;
    }
    functions.set(entry.name, { name: entry.name, params, dependency, monomials, pruned });
  });

  const loops: TaintViewLoop[] = [];
  if (json.loops !== undefined && json.loops !== null) {
    if (!Array.isArray(json.loops)) throw fileError(source, '"loops" must be a list');
    json.loops.forEach((entry, i) => {
      const where = `loops[${i}]`;
      if (!isObject(entry)) throw fileError(source, `${where}: expected an object`);
      const id = typeof entry.id === 'number' ? String(entry.id) : entry.id;
      if (typeof id !== 'string') throw fileError(source, `${where}: "id" must be a string or number`);
      if (typeof entry.function !== 'string') throw fileError(source, `${where}: "function" must be a string`);
      const parent =
        entry.parent === undefined || entry.parent === null
          ? null
          : typeof entry.parent === 'number'
            ? String(entry.parent)
            : entry.parent;
      if (parent !== null && typeof parent !== 'string')
        throw fileError(source, `${where}: "parent" must be an id or null`);
      const params = entry.params === undefined || entry.params === null ? [] : stringList(entry.params);
      if (!params) throw fileError(source, `${where}: "params" must be a list of names`);
      loops.push({ id, function: entry.function, parent, params });
    });
  }
  const branches: TaintViewBranch[] = [];
  if (json.branches !== undefined && json.branches !== null) {
    if (!Array.isArray(json.branches)) throw fileError(source, '"branches" must be a list');
    json.branches.forEach((entry, i) => {
      const where = `branches[${i}]`;
      if (!isObject(entry) || typeof entry.function !== 'string')
        throw fileError(source, `${where}: expected an object with a "function"`);
      const params = entry.params === undefined || entry.params === null ? [] : stringList(entry.params);
      if (!params) throw fileError(source, `${where}: "params" must be a list of names`);
      branches.push({ function: entry.function, params });
    });
  }
  return { source, parameters, functions, loops, branches };
}
