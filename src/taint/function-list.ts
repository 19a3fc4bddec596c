// The function list `taint --instrumented-functions` writes and `instrument --mode taint --functions`
// reads: one site-table name per line; `NAME<TAB>cold` marks a function instrumented without the
// pass's optimizations, as one the first run found to run little (cold-functions.ts).
const COLD_MARK = '\tcold';

export function functionListText(names: string[], cold: string[]): string {
  const coldSet = new Set(cold);
  return names.map((name) => `${name}${coldSet.has(name) ? COLD_MARK : ''}\n`).join('');
}

/** The names (sorted, once each) and the cold ones among them; blank lines are ignored. */
export function parseFunctionList(text: string): { functions: string[]; cold: string[] } {
  const functions = new Set<string>();
  const cold = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const isCold = line.endsWith(COLD_MARK);
    const name = (isCold ? line.slice(0, -COLD_MARK.length) : line).trim();
    functions.add(name);
    if (isCold) cold.add(name);
  }
  return { functions: [...functions].sort(), cold: [...cold].sort() };
}
