// A command's action loaded when the command is chosen: registering a command declares its name and
// options only, so `taintlens run` does not load what `taint` or `model` need (Binaryen above all).
// This is the one lazy import per command; action modules import what they use statically.

export function onDemand<Args extends unknown[]>(
  load: () => Promise<(...args: Args) => unknown>,
): (...args: Args) => Promise<void> {
  return async (...args: Args): Promise<void> => {
    const action = await load();
    await action(...args);
  };
}
