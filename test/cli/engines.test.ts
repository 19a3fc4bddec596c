// The Node version package.json promises is one every runtime dependency accepts (vega-lite 6.5
// asked for Node 22 while package.json said 20.19: npm warned EBADENGINE on install).
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';

type Version = [number, number, number];

const parse = (text: string): Version => {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^[v=]/, '').split('.').map(Number);
  return [major, minor, patch];
};
const compare = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` meets a range of `>=X`, `>X`, `<X`, `<=X`, `^X`, `~X`, `X`, `X.*` joined by spaces and `||`. */
function satisfies(version: Version, range: string): boolean {
  const tight = range.replace(/(>=|<=|>|<|\^|~)\s+/g, '$1');
  return tight.split('||').some((alternative) =>
    alternative
      .trim()
      .split(/\s+/)
      .every((part) => {
        const match = /^(>=|<=|>|<|\^|~)?(\d+(?:\.\d+){0,2})((?:\.[x*])*)$/.exec(part);
        if (!match) throw new Error(`unreadable engines range '${range}'`);
        const bound = parse(match[2]!);
        // `8.*` / `8.x`: any version with these leading numbers.
        if (match[3] && !match[1]) return match[2]!.split('.').every((n, i) => version[i] === Number(n));
        const order = compare(version, bound);
        switch (match[1]) {
          case '>=':
            return order >= 0;
          case '>':
            return order > 0;
          case '<':
            return order < 0;
          case '<=':
            return order <= 0;
          case '^':
            return order >= 0 && version[0] === bound[0];
          case '~':
            return order >= 0 && version[0] === bound[0] && version[1] === bound[1];
          default:
            return order === 0;
        }
      }),
  );
}

test('every runtime dependency runs on the oldest Node the package promises', () => {
  const ours = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  const oldest = parse(/>=\s*([\d.]+)/.exec(ours.engines.node)![1]!);
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
    packages: Record<string, { dev?: boolean; engines?: { node?: string } }>;
  };
  const refusing = Object.entries(lock.packages)
    .filter(
      ([path, info]) =>
        path !== '' && !info.dev && info.engines?.node !== undefined && !satisfies(oldest, info.engines.node),
    )
    .map(([path, info]) => `${path} needs Node ${info.engines!.node}`);
  expect(refusing).toEqual([]);
  expect(satisfies(parse('20.19.0'), '>=22')).toBe(false);
  expect(satisfies(parse('20.19.0'), '^20.19.0 || ^22.12.0 || >=23')).toBe(true);
});
