// A throwaway single-node SLURM cluster for tests (scripts/slurm-local.sh in a temp folder, on free
// ports), or the reason none can run here: SLURM or munge not installed, not root, or the daemons
// did not come up. stop() ends the daemons by the PIDs their files record.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'slurm-local.sh');

export interface LocalCluster {
  dir: string;
  /** SLURM_CONF for the client commands. */
  conf: string;
  stop(): void;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/** slurmctld's port and the next one (slurmd's), both free now. */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000) * 2;
    if ((await portFree(port)) && (await portFree(port + 1))) return port;
  }
  throw new Error('no two free consecutive ports for slurmctld and slurmd');
}

export async function startLocalCluster(): Promise<{ cluster: LocalCluster } | { skip: string }> {
  const check = spawnSync('bash', [script, 'check'], { encoding: 'utf8' });
  if (check.status !== 0) return { skip: `no local SLURM cluster: ${check.stdout.trim() || check.stderr.trim()}` };
  const dir = mkdtempSync(join(tmpdir(), 'taintlens-slurm-'));
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    spawnSync('bash', [script, 'down', dir], { encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
  };
  // Should the test process end without its afterAll (a crash), the daemons still stop.
  process.on('exit', stop);
  const up = spawnSync('bash', [script, 'up', dir, String(await freePortPair())], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (up.status !== 0) {
    const why = (up.stderr || up.stdout).trim().split('\n').at(-1) ?? `exit ${up.status}`;
    stop();
    return { skip: `the local SLURM cluster did not start: ${why}` };
  }
  return { cluster: { dir, conf: join(dir, 'slurm.conf'), stop } };
}
