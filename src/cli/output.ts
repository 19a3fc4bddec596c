// One place decides how a result reaches the user: JSON for machines (--json), text for people.

export function emit(json: boolean, document: unknown, human: () => string): void {
  if (json) process.stdout.write(JSON.stringify(document, null, 2) + '\n');
  else process.stdout.write(human().replace(/\n*$/, '\n'));
}
