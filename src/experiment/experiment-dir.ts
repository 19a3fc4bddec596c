// The folder an experiment writes: measurements.jsonl (Extra-P JSON Lines), summary.json (the
// per-region statistics of every point), spec.json (a copy of the spec) and environment.json (what
// it ran on). points.jsonl keeps each point's statistics as it is measured, so an interrupted
// campaign resumes with them; summary.json is rewritten from it at the end.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, platform, release, arch, totalmem } from 'node:os';
import { join } from 'node:path';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { fileError } from '../util/errors.js';
import { schemaId } from '../util/schema.js';
import { packageRoot } from '../util/package-root.js';
import { readPointSummaries, type ExperimentRun } from './experiment.js';
import type { PointSummary } from './summary.js';
import { specDifference } from './spec.js';

export interface ExperimentDir {
  dir: string;
  measurements: string;
  points: string;
  summary: string;
  spec: string;
  environment: string;
}

export function prepareExperimentDir(dir: string): ExperimentDir {
  try {
    if (!statSync(dir).isDirectory())
      throw fileError(dir, 'exists and is not a folder: --out names the folder the experiment writes');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true });
  }
  return {
    dir,
    measurements: join(dir, 'measurements.jsonl'),
    points: join(dir, 'points.jsonl'),
    summary: join(dir, 'summary.json'),
    spec: join(dir, 'spec.json'),
    environment: join(dir, 'environment.json'),
  };
}

/**
 * Keeps the spec beside the results (DIR/spec.json), refusing a folder that holds another spec's:
 * its points would be merged with this one's. Nothing in the folder changes when it refuses.
 */
export function recordSpec(paths: ExperimentDir, spec: unknown): void {
  if (existsSync(paths.spec)) {
    let recorded: unknown;
    try {
      recorded = JSON.parse(readFileSync(paths.spec, 'utf8'));
    } catch {
      recorded = undefined;
    }
    const difference = specDifference(recorded, spec);
    if (difference)
      throw fileError(
        paths.dir,
        `holds the results of another spec (${difference}); give another --out, or remove the folder`,
      );
  }
  writeJsonAtomic(paths.spec, spec);
}

export function writeEnvironment(paths: ExperimentDir): void {
  const cpu = cpus();
  writeJsonAtomic(paths.environment, {
    schema: schemaId('environment'),
    taintlens: packageRoot()?.version ?? null,
    node: process.version,
    v8: process.versions.v8,
    platform: platform(),
    release: release(),
    arch: arch(),
    cpu: cpu[0]?.model ?? null,
    cores: cpu.length,
    memoryBytes: totalmem(),
    date: new Date().toISOString(),
  });
}

export interface SummaryDocument {
  schema: string;
  module: string;
  mode: string;
  rule: string;
  instrumentedFunctions: number;
  dropped: ExperimentRun['selection']['dropped'];
  design: { kind: string; reason: string; points: number; gridPoints: number; runsSaved: number };
  volume: { summaryBytes: number; traceBytes: number; fullTraceBytes: number };
  points: PointSummary[];
}

export function writeSummary(paths: ExperimentDir, module: string, run: ExperimentRun): SummaryDocument {
  const points = readPointSummaries(paths.points);
  const volume = { summaryBytes: 0, traceBytes: 0, fullTraceBytes: 0 };
  for (const point of points) {
    volume.summaryBytes += point.volume.summaryBytes;
    volume.traceBytes += point.volume.traceBytes;
    volume.fullTraceBytes += point.volume.fullTraceBytes;
  }
  const { selection, design } = run;
  const document: SummaryDocument = {
    schema: schemaId('summary'),
    module,
    mode: selection.mode,
    rule: selection.rule,
    instrumentedFunctions: selection.functions?.length ?? 0,
    dropped: selection.dropped,
    design: {
      kind: design.kind,
      reason: design.reason,
      points: design.points.length,
      gridPoints: design.gridPoints,
      runsSaved: design.runsSaved,
    },
    volume,
    points,
  };
  writeJsonAtomic(paths.summary, document);
  return document;
}
