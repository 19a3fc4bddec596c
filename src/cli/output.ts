// One place decides how a result reaches the user: JSON for machines (--json; laid out by
// report/terminal.ts), text for people.
import { jsonText } from '../report/terminal.js';

/**
 * `warnings` are the document's own (already in it and in the text): with --json they also go to
 * stderr, so a person piping the JSON away still sees that counts are incomplete.
 */
export function emit(json: boolean, document: unknown, human: () => string, warnings: string[] = []): void {
  if (json) {
    process.stdout.write(jsonText(document) + '\n');
    for (const warning of warnings) process.stderr.write(`${warning.replace(/^(warning: )?/, 'warning: ')}\n`);
  } else process.stdout.write(human().replace(/\n*$/, '\n'));
}
