// One place decides how a result reaches the user: JSON for machines (--json; laid out by
// report/terminal.ts), text for people.
import { jsonText } from '../report/terminal.js';

export function emit(json: boolean, document: unknown, human: () => string): void {
  if (json) process.stdout.write(jsonText(document) + '\n');
  else process.stdout.write(human().replace(/\n*$/, '\n'));
}
