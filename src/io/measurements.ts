// Measurement files: Extra-P's text format, JSON Lines (one repetition per line), and Extra-P's
// JSON format. Every problem is reported as `file: line N: what is wrong`.
import { readInputText } from '../util/read-file.js';
import { extname } from 'node:path';
import { fileError } from '../util/errors.js';
import type { Experiment, Series } from '../model/types.js';
import { jsonSyntaxError, parseJson } from './json.js';

export type MeasurementFormat = 'extrap-text' | 'jsonl' | 'extrap-json';

/** The parameter products (bit masks) limit the number of parameters. */
export const MAX_PARAMETERS = 8;

export const DEFAULT_METRIC = 'time';
export const DEFAULT_CALLPATH = '<root>';

export function readMeasurements(file: string, format?: MeasurementFormat): Experiment {
  const text = readInputText(file);
  return parseMeasurements(text, file, format ?? detectFormat(text, file));
}

export function parseMeasurements(text: string, file: string, format: MeasurementFormat): Experiment {
  if (format !== 'extrap-text') refuseOtherDocument(text, file);
  switch (format) {
    case 'extrap-text':
      return parseExtrapText(text, file);
    case 'jsonl':
      return parseJsonLines(text, file);
    case 'extrap-json':
      return parseExtrapJson(text, file);
  }
}

/** By extension (.jsonl, .ndjson, .json, .txt), else by content: a leading `{` means JSON Lines. */
export function detectFormat(text: string, file: string): MeasurementFormat {
  const extension = extname(file).toLowerCase();
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  const firstLine =
    text
      .split('\n')
      .find((line) => line.trim() !== '' && !line.trim().startsWith('#'))
      ?.trim() ?? '';
  if (extension === '.json') {
    // A whole-document JSON object with "measurements" is Extra-P's JSON; several lines of objects
    // (or one object with "params") are JSON Lines; a broken document is reported as Extra-P JSON.
    try {
      const json = JSON.parse(text) as unknown;
      return typeof json === 'object' && json !== null && 'measurements' in json ? 'extrap-json' : 'jsonl';
    } catch {
      try {
        JSON.parse(firstLine);
        return 'jsonl';
      } catch {
        return 'extrap-json';
      }
    }
  }
  return firstLine.startsWith('{') ? 'jsonl' : 'extrap-text';
}

/**
 * A whole JSON document that is not measurements (a taint report, a loop profile, pretty-printed
 * JSON) would otherwise be reported as "line 1: not valid JSON Lines": say what it is instead.
 */
function refuseOtherDocument(text: string, file: string): void {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return;
  let document: unknown;
  try {
    document = JSON.parse(trimmed);
  } catch {
    return;
  }
  if (!isObject(document) || 'measurements' in document || 'params' in document) return;
  const schema = typeof document.schema === 'string' ? document.schema : '';
  if (schema.startsWith('taintlens/taint@'))
    throw fileError(
      file,
      'is a taint report, not measurements: give it with --taint, and measurements (from taintlens measure) as the input',
    );
  if (schema.startsWith('taintlens/'))
    throw fileError(
      file,
      `is a Taintlens ${schema.replace(/^taintlens\//, '').replace(/@\d+$/, '')} document (${schema}), not measurements`,
    );
  throw fileError(
    file,
    'is one JSON document, not measurements: JSON Lines has one {"params":...,"value":...} object per line; Extra-P JSON has "parameters" and "measurements"',
  );
}

/** Collects repetitions per (callpath, metric, point) in first-seen order. */
class Collector {
  private readonly byMetric = new Map<string, Map<string, { series: Series; points: Map<string, number> }>>();
  private readonly order: Series[] = [];

  constructor(readonly params: string[]) {}

  add(callpath: string, metric: string, coords: number[], values: readonly number[]): void {
    let byCallpath = this.byMetric.get(metric);
    if (!byCallpath) this.byMetric.set(metric, (byCallpath = new Map()));
    let entry = byCallpath.get(callpath);
    if (!entry) {
      entry = { series: { callpath, metric, params: this.params, points: [] }, points: new Map() };
      byCallpath.set(callpath, entry);
      this.order.push(entry.series);
    }
    const pointKey = coords.length === 1 ? String(coords[0]) : coords.join(',');
    let index = entry.points.get(pointKey);
    if (index === undefined) {
      index = entry.series.points.length;
      entry.points.set(pointKey, index);
      entry.series.points.push({ coords, values: [] });
    }
    const target = entry.series.points[index]!.values;
    for (const value of values) target.push(value);
  }

  experiment(source: string): Experiment {
    return { source, params: this.params, series: this.order };
  }

  get size(): number {
    return this.order.length;
  }
}

function parseNumber(token: string): number | undefined {
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(token)) return undefined;
  const value = Number(token);
  return Number.isFinite(value) ? value : undefined;
}

function checkParameterNames(file: string, line: number, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) throw fileError(file, `line ${line}: parameter "${name}" given twice`);
    seen.add(name);
  }
  if (names.length > MAX_PARAMETERS)
    throw fileError(file, `line ${line}: ${names.length} parameters; at most ${MAX_PARAMETERS} are supported`);
}

/**
 * Extra-P's text format:
 *   PARAMETER p            (one or more names per line; several lines allowed)
 *   POINTS (4 100) (8 100) (with one parameter the parentheses are optional: POINTS 4 8 16)
 *   REGION main->solve     (the call path of the DATA lines that follow)
 *   METRIC time            (optional; applies until the next METRIC)
 *   DATA 1.2 1.3 1.2       (the repetitions at one point; one DATA line per point, in POINTS order)
 * Lines starting with # are comments. A REGION or METRIC starts a new run of DATA lines.
 */
export function parseExtrapText(text: string, file: string): Experiment {
  const lines = text.split(/\r?\n/);
  const params: string[] = [];
  const points: number[][] = [];
  const seenPoints = new Set<string>();
  let collector: Collector | undefined;
  let region: string | undefined;
  let metric = DEFAULT_METRIC;
  let dataCount = 0;
  let blockLine = 0;
  const blocks = new Set<string>();

  const closeBlock = () => {
    if (dataCount > 0 && dataCount < points.length) {
      throw fileError(
        file,
        `line ${blockLine}: REGION ${region} METRIC ${metric} has ${dataCount} DATA line${dataCount === 1 ? '' : 's'} for ${points.length} POINTS`,
      );
    }
  };
  const openBlock = (lineNumber: number) => {
    dataCount = 0;
    blockLine = lineNumber;
  };

  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const line = lines[index]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    const space = line.search(/\s/);
    const keyword = space < 0 ? line : line.slice(0, space);
    const rest = space < 0 ? '' : line.slice(space + 1).trim();
    switch (keyword) {
      case 'PARAMETER': {
        if (points.length > 0) throw fileError(file, `line ${lineNumber}: PARAMETER after POINTS`);
        const names = rest.split(/\s+/).filter((name) => name !== '');
        if (names.length === 0) throw fileError(file, `line ${lineNumber}: PARAMETER needs a name`);
        params.push(...names);
        checkParameterNames(file, lineNumber, params);
        break;
      }
      case 'POINTS': {
        if (params.length === 0) throw fileError(file, `line ${lineNumber}: POINTS before any PARAMETER`);
        if (collector && collector.size > 0) throw fileError(file, `line ${lineNumber}: POINTS after DATA`);
        for (const point of parsePoints(rest, params.length, file, lineNumber)) {
          const key = point.join(',');
          if (seenPoints.has(key)) throw fileError(file, `line ${lineNumber}: point (${point.join(' ')}) listed twice`);
          seenPoints.add(key);
          points.push(point);
        }
        break;
      }
      case 'REGION':
        if (rest === '') throw fileError(file, `line ${lineNumber}: REGION needs a call path`);
        closeBlock();
        region = rest;
        openBlock(lineNumber);
        break;
      case 'METRIC':
        if (rest === '') throw fileError(file, `line ${lineNumber}: METRIC needs a name`);
        closeBlock();
        metric = rest;
        openBlock(lineNumber);
        break;
      case 'DATA': {
        if (points.length === 0) throw fileError(file, `line ${lineNumber}: DATA before POINTS`);
        if (region === undefined) throw fileError(file, `line ${lineNumber}: DATA before any REGION`);
        if (dataCount === 0) {
          const key = `${region}\u0000${metric}`;
          if (blocks.has(key))
            throw fileError(file, `line ${lineNumber}: REGION ${region} METRIC ${metric} given twice`);
          blocks.add(key);
        }
        if (dataCount >= points.length) {
          throw fileError(
            file,
            `line ${lineNumber}: more DATA lines than POINTS (${points.length}) for REGION ${region} METRIC ${metric}`,
          );
        }
        const tokens = rest.split(/\s+/).filter((token) => token !== '');
        if (tokens.length === 0) throw fileError(file, `line ${lineNumber}: DATA needs at least one value`);
        const values = tokens.map((token) => {
          const value = parseNumber(token);
          if (value === undefined) throw fileError(file, `line ${lineNumber}: "${token}" is not a number`);
          return value;
        });
        collector ??= new Collector(params);
        collector.add(region, metric, points[dataCount]!, values);
        dataCount++;
        break;
      }
      default:
        throw fileError(
          file,
          `line ${lineNumber}: unknown keyword "${keyword}" (expected PARAMETER, POINTS, REGION, METRIC or DATA)`,
        );
    }
  }
  closeBlock();
  if (params.length === 0) throw fileError(file, 'no PARAMETER line (is this an Extra-P text file?)');
  if (points.length === 0) throw fileError(file, 'no POINTS line');
  if (!collector || collector.size === 0) throw fileError(file, 'no DATA lines');
  return collector.experiment(file);
}

/** `(4 100) (8 100)`, `((4) (100)) ((8) (100))`, or for one parameter also `4 8 16`. */
function parsePoints(text: string, m: number, file: string, line: number): number[][] {
  const tokens: string[] = text.match(/\(|\)|[^\s()]+/g) ?? [];
  if (tokens.length === 0) throw fileError(file, `line ${line}: POINTS needs at least one point`);
  const toNumber = (token: string) => {
    const value = parseNumber(token);
    if (value === undefined) throw fileError(file, `line ${line}: "${token}" is not a number`);
    return value;
  };
  const points: number[][] = [];
  if (!tokens.includes('(')) {
    if (m !== 1) throw fileError(file, `line ${line}: POINTS for ${m} parameters need parentheses: (x1 y1) (x2 y2)`);
    return tokens.map((token) => [toNumber(token)]);
  }
  let depth = 0;
  let current: number[] | undefined;
  for (const token of tokens) {
    if (token === '(') {
      if (depth === 0) current = [];
      depth++;
      if (depth > 2) throw fileError(file, `line ${line}: too many nested parentheses in POINTS`);
    } else if (token === ')') {
      depth--;
      if (depth < 0) throw fileError(file, `line ${line}: unbalanced ) in POINTS`);
      if (depth === 0) {
        if (current!.length !== m) {
          throw fileError(
            file,
            `line ${line}: point (${current!.join(' ')}) has ${current!.length} coordinate${current!.length === 1 ? '' : 's'}, expected ${m}`,
          );
        }
        points.push(current!);
        current = undefined;
      }
    } else {
      if (depth === 0) throw fileError(file, `line ${line}: "${token}" outside parentheses in POINTS`);
      current!.push(toNumber(token));
    }
  }
  if (depth !== 0) throw fileError(file, `line ${line}: unbalanced ( in POINTS`);
  return points;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A finite JSON number; a string, even "4", is not one (Extra-P reads numbers, and a quoted value is a mistake upstream). */
function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `, not the string "4"` when a string stood where a number belongs. */
function notAString(value: unknown): string {
  const string = Array.isArray(value) ? value.find((v) => typeof v === 'string') : value;
  return typeof string === 'string'
    ? `, not the string ${JSON.stringify(string.length > 20 ? string.slice(0, 20) + '…' : string)}`
    : '';
}

/**
 * JSON Lines, one object per repetition (or per point with a list of values):
 *   {"params":{"p":4,"n":100},"callpath":"main->k","metric":"time","value":1.2}
 * `callpath` defaults to <root>, `metric` to time. Every line names the same parameters.
 */
export function parseJsonLines(text: string, file: string): Experiment {
  const lines = text.split('\n');
  let params: string[] | undefined;
  let firstLine = 0;
  let collector: Collector | undefined;
  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const line = lines[index]!.trim();
    if (line === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      throw fileError(file, `line ${lineNumber}: ${jsonSyntaxError(line, error).replace(/^line \d+: /, '')}`);
    }
    if (!isObject(entry)) throw fileError(file, `line ${lineNumber}: expected a JSON object`);
    if (!isObject(entry.params))
      throw fileError(file, `line ${lineNumber}: "params" must be an object of parameter values`);
    const record = entry.params;
    if (params === undefined) {
      const names = Object.keys(record);
      if (names.length === 0) throw fileError(file, `line ${lineNumber}: "params" names no parameter`);
      checkParameterNames(file, lineNumber, names);
      params = names;
      firstLine = lineNumber;
      collector = new Collector(params);
    }
    let count = 0;
    for (const _ in record) count++;
    if (count !== params.length || !params.every((name) => Object.hasOwn(record, name))) {
      throw fileError(
        file,
        `line ${lineNumber}: parameters {${Object.keys(record).join(', ')}} differ from {${params.join(', ')}} on line ${firstLine}`,
      );
    }
    const coords = new Array<number>(params.length);
    for (let l = 0; l < params.length; l++) {
      const raw = record[params[l]!];
      const value = asNumber(raw);
      if (value === undefined)
        throw fileError(file, `line ${lineNumber}: parameter "${params[l]}" must be a finite number${notAString(raw)}`);
      coords[l] = value;
    }
    const raw = entry.value;
    const values =
      typeof raw === 'number' && Number.isFinite(raw)
        ? [raw]
        : Array.isArray(raw)
          ? raw.map(asNumber)
          : [asNumber(raw)];
    if (values.length === 0 || values.some((value) => value === undefined)) {
      throw fileError(file, `line ${lineNumber}: "value" must be a finite number or a list of them${notAString(raw)}`);
    }
    const callpath = entry.callpath ?? DEFAULT_CALLPATH;
    if (typeof callpath !== 'string' || callpath === '')
      throw fileError(file, `line ${lineNumber}: "callpath" must be a non-empty string`);
    const metric = entry.metric ?? DEFAULT_METRIC;
    if (typeof metric !== 'string' || metric === '')
      throw fileError(file, `line ${lineNumber}: "metric" must be a non-empty string`);
    collector!.add(callpath, metric, coords, values as number[]);
  }
  if (!collector) throw fileError(file, 'no measurements (empty file)');
  return collector.experiment(file);
}

/**
 * Extra-P's JSON format:
 *   {"parameters":["p","n"],"measurements":{"main->k":{"time":[{"point":[4,100],"values":[1.2,1.3]}]}}}
 */
export function parseExtrapJson(text: string, file: string): Experiment {
  const json = parseJson(text, file);
  if (!isObject(json)) throw fileError(file, 'expected a JSON object');
  const params = json.parameters;
  if (!Array.isArray(params) || params.length === 0 || !params.every((p) => typeof p === 'string')) {
    throw fileError(file, '"parameters" must be a non-empty list of names');
  }
  const names = params as string[];
  const nameLine = lineOf(text, '"parameters"');
  checkParameterNames(file, nameLine, names);
  if (!isObject(json.measurements)) throw fileError(file, '"measurements" must be an object of call paths');
  const collector = new Collector(names);
  for (const [callpath, metrics] of Object.entries(json.measurements)) {
    const where = `measurements["${callpath}"]`;
    const line = lineOf(text, JSON.stringify(callpath));
    if (!isObject(metrics)) throw fileError(file, `line ${line}: ${where} must be an object of metrics`);
    for (const [metric, entries] of Object.entries(metrics)) {
      if (!Array.isArray(entries)) throw fileError(file, `line ${line}: ${where}["${metric}"] must be a list`);
      entries.forEach((entry, i) => {
        const at = `${where}["${metric}"][${i}]`;
        if (!isObject(entry)) throw fileError(file, `line ${line}: ${at} must be an object`);
        const point = Array.isArray(entry.point) ? entry.point.map(asNumber) : undefined;
        if (!point || point.length !== names.length || point.some((v) => v === undefined)) {
          throw fileError(
            file,
            `line ${line}: ${at}.point must list ${names.length} numbers${notAString(entry.point)}`,
          );
        }
        const values = Array.isArray(entry.values) ? entry.values.map(asNumber) : undefined;
        if (!values || values.length === 0 || values.some((v) => v === undefined)) {
          throw fileError(
            file,
            `line ${line}: ${at}.values must be a non-empty list of numbers${notAString(entry.values)}`,
          );
        }
        collector.add(callpath, metric, point as number[], values as number[]);
      });
    }
  }
  if (collector.size === 0) throw fileError(file, 'no measurements');
  return collector.experiment(file);
}

/** The line of the first occurrence of `needle` (for messages about JSON documents). */
function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  return at < 0 ? 1 : text.slice(0, at).split('\n').length;
}
