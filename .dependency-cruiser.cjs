// The import-layer rule (npm run lint:layers): a module may import only its own layer and the layers
// listed under it here. docs/architecture.md shows the same table; change both together.

/** Each layer: the files it holds (a path regex) and the layers it may import besides itself. */
const LAYERS = {
  util: { path: '^src/util/', job: 'files, hashes, errors, workers, progress', mayImport: [] },
  instrument: { path: '^instrument/', job: 'rewrites modules with Binaryen', mayImport: ['util'] },
  model: { path: '^src/model/', job: 'performance models (pure math)', mayImport: ['util'] },
  text: { path: '^src/report/(table|names|wrap|terminal)\\.ts$', job: 'text and table rendering', mayImport: ['util'] },
  runtime: { path: '^src/runtime/', job: 'runs (instrumented) modules in workers', mayImport: ['instrument', 'util'] },
  io: { path: '^src/io/', job: 'reads and writes our file formats', mayImport: ['model', 'text', 'util'] },
  compile: {
    path: '^src/(as|cc)/',
    job: 'compiler front-ends (AssemblyScript, clang)',
    mayImport: ['instrument', 'util'],
  },
  fuzz: {
    path: '^src/fuzz/',
    job: 'differential fuzzer of the instrumenter',
    mayImport: ['instrument', 'runtime', 'text', 'util'],
  },
  analysis: {
    path: '^src/(profile|taint|blame|experiment)/|^src/report/(loops-report|loop-ranks-report|ranks-report)\\.ts$',
    job: 'analyses: loop profile, taint, blame, experiments',
    mayImport: ['instrument', 'runtime', 'model', 'io', 'text', 'util'],
  },
  analyze: {
    path: '^src/analyze/|^src/report/html/',
    job: 'the analyze pipeline and its report',
    mayImport: ['analysis', 'instrument', 'runtime', 'model', 'io', 'text', 'util'],
  },
  cli: {
    path: '^src/cli/',
    job: 'turns flags into typed options, runs a command',
    mayImport: ['analyze', 'analysis', 'fuzz', 'compile', 'instrument', 'runtime', 'model', 'io', 'text', 'util'],
  },
};

/** Everything of ours a layer could import (bench/ and test/ sit above all and may import anything). */
const OURS = '^(src|instrument|bench|test)/';

const layerRules = Object.entries(LAYERS).map(([name, layer]) => ({
  name: `layer-${name}`,
  comment: `${name} (${layer.job}) may import only ${[name, ...layer.mayImport].join(', ')}`,
  severity: 'error',
  from: { path: layer.path },
  to: { path: OURS, pathNot: [layer.path, ...layer.mayImport.map((below) => LAYERS[below].path)] },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'instrument-npm',
      comment: 'instrument/ uses Binaryen and Node only',
      severity: 'error',
      from: { path: LAYERS.instrument.path },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        pathNot: '^node_modules/binaryen/',
      },
    },
    {
      name: 'unlayered',
      comment:
        'every source file belongs to a layer of .dependency-cruiser.cjs (add new folders there and to docs/architecture.md)',
      severity: 'error',
      from: { path: '^(src|instrument)/', pathNot: Object.values(LAYERS).map((layer) => layer.path) },
      to: {},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to nothing',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|build|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'test/tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
  },
};
