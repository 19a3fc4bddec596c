// Measurement overhead (Perf-Taint §6): `taintlens overhead` on the mini-app and on a kernel with a
// hot, tiny helper (native/src/hot_helper.c). Prints per kernel the runtime ÷ none of full, default
// and selective instrumentation and full ÷ selective. Target: selective ≤ 5% over none; full
// visibly more where a small function is called very often.
import { readSpec } from '../src/experiment/spec.js';
import { measureOverhead } from '../src/experiment/overhead.js';
import { readWasmFile } from '../instrument/module-io.js';
import { renderTable } from '../src/report/table.js';

const rounds = (() => {
  const flag = process.argv.indexOf('--rounds');
  return flag >= 0 ? Number(process.argv[flag + 1]) : 3;
})();
const specs = ['examples/miniapp.overhead.json', 'examples/hot-helper.overhead.json'];

interface Row {
  kernel: string;
  noneMs: number;
  full: number;
  default: number;
  selective: number;
  fullOverSelective: number;
  target: string;
}
const rows: Row[] = [];
for (const file of specs) {
  const spec = readSpec(file);
  const report = await measureOverhead({ ...spec, file: spec.module, bytes: readWasmFile(spec.module) }, rounds);
  const ratio = (mode: string) => report.modes.find((m) => m.mode === mode)!.ratio;
  rows.push({
    kernel: file.replace(/^examples\/|\.overhead\.json$/g, ''),
    noneMs: report.modes[0]!.medianMs,
    full: ratio('full'),
    default: ratio('default'),
    selective: ratio('selective'),
    fullOverSelective: report.fullOverSelective ?? NaN,
    target: ratio('selective') <= 1.05 ? 'selective ≤ 5%: yes' : 'selective ≤ 5%: NO',
  });
}
const times = (v: number) => `${v.toFixed(3)}×`;
console.log(
  `measurement overhead, runtime ÷ none (${rounds} alternating rounds; none = relocated module without regions)`,
);
console.log(
  renderTable(rows, [
    { header: 'kernel', value: (r) => r.kernel },
    { header: 'none ms', value: (r) => r.noneMs.toFixed(2), align: 'right' },
    { header: 'full', value: (r) => times(r.full), align: 'right' },
    { header: 'default', value: (r) => times(r.default), align: 'right' },
    { header: 'selective', value: (r) => times(r.selective), align: 'right' },
    { header: 'full ÷ selective', value: (r) => `${r.fullOverSelective.toFixed(2)}×`, align: 'right' },
    { header: 'target', value: (r) => r.target },
  ]),
);
