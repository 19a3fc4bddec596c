// Labels a WASI program's inputs without touching its source (the Perf-Taint way of marking): the
// bytes of argv[K], of an environment variable's value, or of what is read from a file opened by
// name. The WASI host writes them into program memory; this wraps its functions and, right after
// each one, gives the written bytes the parameter's label in shadow memory, so that atoi/strtol
// and every computation after them carry it into the program.
import type { HostPluginContext, Imports } from '../runtime/plugin.js';

/** An input to label: `argv` is the index into C's argv (0 = the program's name, 1 = the first word after `--`). */
export type InputLabel =
  { name: string; argv: number } | { name: string; env: string } | { name: string; file: string };

type Label = (programAddress: number, size: number, name: string) => void;
type WasiFunction = (...args: Array<number | bigint>) => number;

/** WASI functions that label `inputs` after calling the host's own (`defaults`). */
export function labelledWasi(
  inputs: readonly InputLabel[],
  defaults: Imports,
  context: HostPluginContext,
  label: Label,
): Imports {
  const wasi = defaults.wasi_snapshot_preview1 as Record<string, WasiFunction> | undefined;
  if (!wasi || inputs.length === 0) return {};
  const view = () => new DataView(context.memory()!.buffer);
  const bytes = () => new Uint8Array(context.memory()!.buffer);
  const u32 = (programAddress: number) => view().getUint32(programAddress + context.programBase, true);
  const cString = (programAddress: number): Uint8Array => {
    const all = bytes();
    const start = programAddress + context.programBase;
    const end = all.indexOf(0, start);
    return all.subarray(start, end < 0 ? all.length : end);
  };
  const out: Record<string, WasiFunction> = {};
  const argvInputs = inputs.filter((i): i is { name: string; argv: number } => 'argv' in i);
  const envInputs = inputs.filter((i): i is { name: string; env: string } => 'env' in i);
  const fileInputs = inputs.filter((i): i is { name: string; file: string } => 'file' in i);

  if (argvInputs.length > 0 && wasi.args_get) {
    const original = wasi.args_get;
    out.args_get = (argv, buffer) => {
      const errno = original(argv, buffer);
      for (const input of argvInputs) {
        const pointer = u32(Number(argv) + 4 * input.argv);
        label(pointer, cString(pointer).length, input.name);
      }
      return errno;
    };
  }
  if (envInputs.length > 0 && wasi.environ_get && wasi.environ_sizes_get) {
    const original = wasi.environ_get;
    out.environ_get = (environ, buffer) => {
      const errno = original(environ, buffer);
      // environ_sizes_get wrote the count where the program asked; recount from the pointer array instead.
      for (let i = 0; ; i++) {
        const pointer = u32(Number(environ) + 4 * i);
        const entry = Buffer.from(cString(pointer)).toString('utf8');
        const equals = entry.indexOf('=');
        const input = envInputs.find((e) => equals > 0 && entry.slice(0, equals) === e.env);
        if (input)
          label(
            pointer + Buffer.byteLength(entry.slice(0, equals + 1), 'utf8'),
            Buffer.byteLength(entry.slice(equals + 1), 'utf8'),
            input.name,
          );
        if (i + 1 >= environCount) break;
      }
      return errno;
    };
    let environCount = 0;
    const sizes = wasi.environ_sizes_get;
    out.environ_sizes_get = (count, size) => {
      const errno = sizes(count, size);
      environCount = u32(Number(count));
      return errno;
    };
  }
  if (fileInputs.length > 0 && wasi.path_open && wasi.fd_read) {
    const opened = new Map<number, string>();
    const open = wasi.path_open;
    out.path_open = (dirFd, lookup, path, pathLength, oflags, base, inheriting, fdflags, result) => {
      const errno = open(dirFd, lookup, path, pathLength, oflags, base, inheriting, fdflags, result);
      const text = Buffer.from(
        bytes().subarray(Number(path) + context.programBase, Number(path) + context.programBase + Number(pathLength)),
      ).toString('utf8');
      const input = fileInputs.find(
        (f) => f.file === text || f.file.endsWith(`/${text}`) || text.endsWith(`/${f.file}`),
      );
      if (errno === 0 && input) opened.set(u32(Number(result)), input.name);
      return errno;
    };
    const read = wasi.fd_read;
    out.fd_read = (fd, iovs, count, nread) => {
      const errno = read(fd, iovs, count, nread);
      const name = opened.get(Number(fd));
      if (errno === 0 && name !== undefined) {
        let left = u32(Number(nread));
        for (let i = 0; i < Number(count) && left > 0; i++) {
          const base = u32(Number(iovs) + 8 * i);
          const length = Math.min(u32(Number(iovs) + 8 * i + 4), left);
          label(base, length, name);
          left -= length;
        }
      }
      return errno;
    };
  }
  return { wasi_snapshot_preview1: out };
}
