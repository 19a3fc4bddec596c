// What an existing measurements file already holds, checked before a campaign appends to it: it
// must be JSON Lines of this campaign's parameters, recorded (identity.ts) as measured the same way.
// A torn last line (a campaign killed mid-write) is cut off; its point is measured again.
import { existsSync, readFileSync } from 'node:fs';
import { fileError } from '../util/errors.js';
import { checkOutputFile, writeFileAtomic } from '../util/atomic-write.js';
import { campaignFile, identityDifference, readIdentity, writeIdentity, type CampaignIdentity } from './identity.js';
import { pointKey, type GridPoint } from './grid.js';

/** Checks `output` can take this campaign's measurements; returns the points already measured. */
export function prepareOutput(output: string, identity: CampaignIdentity): Set<string> {
  const done = new Set<string>();
  checkOutputFile(output);
  const text = existsSync(output) ? readFileSync(output, 'utf8') : '';
  if (text.trim() === '') {
    writeIdentity(output, identity, null);
    return done;
  }
  const { lines, torn } = completeLines(text);
  const names = identity.parameters.map((p) => p.name).sort();
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const params = measuredParams(line);
    if (!params) {
      throw fileError(
        output,
        `line ${index + 1} is not a JSON Lines measurement, so this is not a campaign to resume: measure into another file`,
      );
    }
    const found = Object.keys(params).sort();
    if (found.join(',') !== names.join(',')) {
      throw fileError(
        output,
        `holds measurements over {${found.join(', ')}} (line ${index + 1}), not {${names.join(', ')}}: measure into another file`,
      );
    }
    done.add(pointKey(params));
  });
  const recorded = readIdentity(output);
  const record = campaignFile(output);
  if (!recorded) {
    throw fileError(
      output,
      `has measurements but no campaign record (${record}), so how they were measured is unknown: measure into another file, or delete it to start over`,
    );
  }
  const difference = identityDifference(recorded, identity);
  if (difference) {
    throw fileError(
      output,
      `holds another campaign (${difference}): measure into another file, or delete it and ${record} to start over`,
    );
  }
  if (torn) writeFileAtomic(output, lines.length ? lines.join('\n') + '\n' : '');
  writeIdentity(output, identity, recorded);
  return done;
}

/**
 * The lines of a measurements file that hold whole points: a torn last write (a kill mid-write) is
 * cut off together with the complete lines of its point, since a point's lines go out in one write.
 */
export function completeLines(text: string): { lines: string[]; torn: boolean } {
  const torn = text !== '' && !text.endsWith('\n');
  const lines = text.split('\n');
  const fragment = lines.pop()!;
  if (torn) dropTornPoint(lines, fragment);
  return { lines, torn };
}

/**
 * Removes the complete lines written with a torn last line: those of the fragment's point (its
 * params come first), or, when the fragment is too short to tell, those of the last point.
 */
function dropTornPoint(lines: string[], fragment: string): void {
  const head = /^\{"params":(\{[^{}]*\})/.exec(fragment);
  let key: string | null = null;
  try {
    if (head) key = pointKey(JSON.parse(head[1]!) as GridPoint);
  } catch {
    key = null;
  }
  const last = lines.length ? measuredParams(lines[lines.length - 1]!) : null;
  if (key === null && last) key = pointKey(last);
  while (lines.length > 0) {
    const params = measuredParams(lines[lines.length - 1]!);
    if (!params || pointKey(params) !== key) break;
    lines.pop();
  }
}

export function measuredParams(line: string): GridPoint | null {
  try {
    const entry = JSON.parse(line) as unknown;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const params = (entry as { params?: unknown }).params;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) return null;
    return params as GridPoint;
  } catch {
    return null;
  }
}

/** Points whose measurements are whole in `output` (0 when it does not exist yet). */
export function keptPoints(output: string): number {
  if (!existsSync(output)) return 0;
  const { lines } = completeLines(readFileSync(output, 'utf8'));
  const points = new Set<string>();
  for (const line of lines) {
    const params = measuredParams(line);
    if (params) points.add(pointKey(params));
  }
  return points.size;
}
