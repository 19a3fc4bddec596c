// Which functions belong to the toolchain's libraries (wasi-libc, libc++/libc++abi, compiler-rt,
// the AssemblyScript runtime) rather than to the program: their source paths when the module has
// debug info, else known runtime symbols. Reports list program functions first and fold library
// loops into the program function that called them (Perf-Taint's library database does the same).

/** Source paths of the libraries as clang and the Debian/wasi-sdk sysroots record them. */
const LIBRARY_PATHS = [
  /(^|\/)libc-(bottom|top)-half\//,
  /(^|\/)wasi-libc\//,
  /(^|\/)wasi-sysroot\//,
  /(^|\/)dlmalloc\//,
  /(^|\/)libcxx(abi)?\//,
  /(^|\/)include\/c\+\+\//,
  /(^|\/)compiler-rt\//,
  /(^|\/)emscripten\/system\//,
  /^~lib\//,
  /(^|\/)sysroot\/include\//,
];

/** C library and runtime symbols of wasi-libc (what a -g-less WASI program links). */
const LIBC_SYMBOLS = new Set(
  (
    '_start _initialize _Exit abort exit atexit close dummy dummy_64 pad pop_arg printf_core long_double_not_supported ' +
    'printf fprintf sprintf snprintf vprintf vfprintf vsprintf vsnprintf dprintf vdprintf puts fputs fputc putc putchar ' +
    'fwrite fread fopen fclose fflush fseek ftell writev readv read write lseek open isatty ' +
    'scanf sscanf fscanf vfscanf getc fgetc fgets getchar ungetc ' +
    'malloc free calloc realloc aligned_alloc posix_memalign dlmalloc dlfree dlrealloc dlcalloc sbrk internal_memalign ' +
    'memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strcpy strncpy strcat strchr strrchr strdup strstr strerror ' +
    'strtol strtoul strtoll strtoull strtod strtof atoi atol atof abs labs qsort bsearch rand srand getenv ' +
    'wcrtomb wctomb mbrtowc mbtowc frexp ldexp fmod sqrt pow exp log sin cos tan floor ceil round ' +
    'main_void environ_get args_get'
  ).split(' '),
);

/** `__name` runtime internals, libc++ and libc++abi (mangled or demangled), AS runtime. */
const LIBRARY_NAMES = [
  /^__(?!original_main$)/,
  /^_ZN?St/,
  /^_ZNKSt/,
  /(^|\W)std::/,
  /^__cxa_/,
  /^operator (new|delete)/,
  /^~lib\//,
  /^_Z(nw|na|dl|da)/,
];

const isLibraryFile = (file: string) => LIBRARY_PATHS.some((pattern) => pattern.test(file));

/** Whether any function has a line in a file of the program's own (not a library path). */
export function programHasLines(filesPerFunction: ReadonlyArray<readonly string[]>): boolean {
  return filesPerFunction.some((files) => files.some((file) => !isLibraryFile(file)));
}

/**
 * `programLines`: the program's own code has lines (it was built with -g). Only then does a
 * function without lines belong to a library built without -g (the prebuilt sysroot); a program
 * built without -g against a libc with debug info has no lines of its own, and "has no line info"
 * does not make its functions library code.
 */
export function isLibraryFunction(
  name: string,
  files: readonly string[],
  moduleHasDebugInfo: boolean,
  programLines = true,
): boolean {
  if (LIBRARY_NAMES.some((pattern) => pattern.test(name))) return true;
  if (files.length > 0) return files.every(isLibraryFile);
  if (moduleHasDebugInfo && programLines) return name !== 'main' && name !== '__original_main';
  return LIBC_SYMBOLS.has(name);
}
