// How the report shows numbers, shared by the terminal summary, report.html and the test that
// checks the page against report.json.
import { formatCoefficient } from '../../model/format.js';

export const formatValue = formatCoefficient;

/** 0.1234 → "12.3%". */
export function formatShare(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

/** 1.2345 → "1.235×". */
export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(3)}×`;
}

interface RoundedOverhead {
  mode: string;
  ratio: number;
  roundRange: [number, number] | null;
  aboveNoise: boolean | null;
}

/** `0.981–1.120 within noise` where some round ran the mode no slower than none; null for none or one round. */
export function formatRoundRange(mode: RoundedOverhead): string | null {
  if (mode.mode === 'none' || mode.roundRange === null) return null;
  const [low, high] = mode.roundRange;
  return `${low.toFixed(3)}–${high.toFixed(3)}${mode.aboveNoise ? '' : ' within noise'}`;
}

/** A mode's overhead with what the rounds support: `1.049× (0.981–1.120 over rounds: within noise)`. */
export function formatOverhead(mode: RoundedOverhead): string {
  if (mode.mode === 'none' || mode.roundRange === null) return formatRatio(mode.ratio);
  const [low, high] = mode.roundRange;
  const range = `${low.toFixed(3)}–${high.toFixed(3)} over rounds`;
  return `${formatRatio(mode.ratio)} (${mode.aboveNoise ? range : `${range}: within noise`})`;
}

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]!};`);
}
