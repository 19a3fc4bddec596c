// `taintlens ... --json | head -1`: when the reader goes away, writing to stdout fails with EPIPE.
// That is the reader's choice, not an error: stop at once, quietly, with exit code 0.
let installed = false;

export function exitQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(0);
      throw error;
    });
  }
}
