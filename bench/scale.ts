// `npm run bench:scale`: instrumentation time and peak memory on large modules (issue 18's targets:
// loops of 10 MB of code in < 30 s and < 2 GB, taint of 1.7 MB in < 60 s, loops+taint about the
// sum). Each measurement runs in its own process so peak memory (max RSS) is its own. The modules
// are synthetic (bench/synthetic-module.ts): `--bytes-loops N` and `--bytes-taint N` change sizes.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { syntheticModule } from './synthetic-module.js';
import { instrumentModule } from '../instrument/pipeline.js';
import { renderTable } from '../src/report/table.js';

interface Measurement {
  modes: string;
  moduleBytes: number;
  functions: number;
  ms: number;
  cpuMs: number;
  peakMiB: number;
  outBytes: number;
}

function measureOne(modes: string, bytes: number): Measurement {
  const module = syntheticModule(bytes);
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = instrumentModule(module, `synthetic-${bytes}.wasm`, modes.split(','));
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return {
    modes,
    moduleBytes: module.length,
    functions: result.sites.functions.length,
    ms,
    cpuMs: (used.user + used.system) / 1000,
    peakMiB: process.resourceUsage().maxRSS / 1024,
    outBytes: result.bytes.length,
  };
}

const argv = process.argv.slice(2);
if (argv[0] === '--one') {
  console.log(JSON.stringify(measureOne(argv[1]!, Number(argv[2]))));
} else {
  const option = (flag: string, fallback: number) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  const loopsBytes = option('--bytes-loops', 10 << 20);
  const taintBytes = option('--bytes-taint', 1.7 * (1 << 20));
  const plan: Array<[string, number]> = [
    ['loops', loopsBytes],
    ['taint', taintBytes],
    ['loops', taintBytes],
    ['loops,taint', taintBytes],
  ];
  const rows: Measurement[] = [];
  for (const [modes, bytes] of plan) {
    const out = execFileSync(
      process.execPath,
      ['--max-old-space-size=4096', fileURLToPath(import.meta.url), '--one', modes, String(bytes)],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    rows.push(JSON.parse(out) as Measurement);
    process.stderr.write(
      `  ${modes} of ${(bytes / (1 << 20)).toFixed(1)} MiB: ${(rows.at(-1)!.ms / 1000).toFixed(1)} s\n`,
    );
  }
  console.log('instrumentation at scale (synthetic modules; wall time, CPU time and peak memory of one process each)');
  console.log(
    renderTable(rows, [
      { header: 'modes', value: (r) => r.modes },
      { header: 'module MiB', value: (r) => Number((r.moduleBytes / (1 << 20)).toFixed(2)) },
      { header: 'functions', value: (r) => r.functions },
      { header: 'time s', value: (r) => Number((r.ms / 1000).toFixed(2)) },
      { header: 'cpu s', value: (r) => Number((r.cpuMs / 1000).toFixed(2)) },
      { header: 'peak MiB', value: (r) => Math.round(r.peakMiB) },
      { header: 'output MiB', value: (r) => Number((r.outBytes / (1 << 20)).toFixed(2)) },
    ]),
  );
  const [loops, taint, smallLoops, both] = rows as [Measurement, Measurement, Measurement, Measurement];
  console.log(
    `loops of ${(loops.moduleBytes / (1 << 20)).toFixed(1)} MiB: ${(loops.ms / 1000).toFixed(1)} s (CPU ${(loops.cpuMs / 1000).toFixed(1)} s), ${Math.round(loops.peakMiB)} MiB (target < 30 s, < 2048 MiB)`,
  );
  console.log(
    `taint of ${(taint.moduleBytes / (1 << 20)).toFixed(1)} MiB: ${(taint.ms / 1000).toFixed(1)} s (CPU ${(taint.cpuMs / 1000).toFixed(1)} s; target < 60 s)`,
  );
  console.log(
    `loops,taint / (loops + taint): ${(both.cpuMs / (smallLoops.cpuMs + taint.cpuMs)).toFixed(2)} in CPU time (target about 1)`,
  );
}
