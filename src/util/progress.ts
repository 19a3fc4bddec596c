// Progress for long work: a bar on an interactive terminal, nothing otherwise (CI, pipes, --json).
// stop() erases the bar's line (and returns the cursor to where the bar started), so a caller stops
// it before printing its result: whatever is printed while the bar is up is erased with it.
import cliProgress from 'cli-progress';

export interface Progress {
  tick(label?: string): void;
  stop(): void;
}

export function startProgress(
  total: number,
  title: string,
  enabled = process.stderr.isTTY === true,
  stream: NodeJS.WriteStream = process.stderr,
): Progress {
  if (!enabled || total <= 1) return { tick() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${title} [{bar}] {value}/{total} {label}`, stream, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  return {
    tick(label = '') {
      bar.increment(1, { label });
    },
    stop() {
      bar.stop();
    },
  };
}
