// Compiles WebAssembly text to binary for test fixtures (wabt's parser, with the name section kept).
import createWabt from 'wabt';

const wabt = await createWabt();

export function wat(text: string): Uint8Array {
  const parsed = wabt.parseWat('fixture.wat', text, {
    multi_value: true,
    bulk_memory: true,
    reference_types: true,
    simd: true,
    sign_extension: true,
    mutable_globals: true,
    sat_float_to_int: true,
  });
  try {
    parsed.resolveNames();
    parsed.validate();
    return new Uint8Array(parsed.toBinary({ write_debug_names: true }).buffer);
  } finally {
    parsed.destroy();
  }
}
