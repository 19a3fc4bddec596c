// Compiles WebAssembly text to binary for test fixtures (wabt's parser; the name section is kept unless asked otherwise).
import createWabt from 'wabt';

const wabt = await createWabt();

/** `names: false` leaves the name section out (functions known only by number, as in a stripped build). */
export function wat(text: string, options: { names?: boolean } = {}): Uint8Array {
  const parsed = wabt.parseWat('fixture.wat', text, {
    multi_value: true,
    bulk_memory: true,
    reference_types: true,
    simd: true,
    sign_extension: true,
    mutable_globals: true,
    sat_float_to_int: true,
    tail_call: true,
  });
  try {
    parsed.resolveNames();
    parsed.validate();
    return new Uint8Array(parsed.toBinary({ write_debug_names: options.names !== false }).buffer);
  } finally {
    parsed.destroy();
  }
}
