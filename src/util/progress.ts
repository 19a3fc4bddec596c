// Progress for long work: a bar on an interactive terminal, nothing otherwise (CI, pipes, --json).
import cliProgress from 'cli-progress';

export interface Progress {
  tick(label?: string): void;
  stop(): void;
}

export function startProgress(total: number, title: string, enabled = process.stderr.isTTY === true): Progress {
  if (!enabled || total <= 1) return { tick() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    { format: `${title} [{bar}] {value}/{total} {label}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
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
