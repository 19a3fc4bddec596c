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

export function formatCount(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[c]!};`);
}
