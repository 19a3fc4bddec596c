// Lint rules for the TypeScript tree (src, instrument, bench, test) and the plain-JS launchers.
// Type-aware: the promise rules need types (a forgotten await on a run or a write is a real bug here).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  // assembly/ is AssemblyScript (its own compiler and types), not TypeScript for tsc.
  {
    ignores: [
      'dist/**',
      'build/**',
      'node_modules/**',
      'assembly/**',
      'native/**',
      'library/**',
      'examples/**',
      '.taintlens/**',
    ],
  },
  js.configs.recommended,
  {
    rules: {
      // Flags `let x = 0` initialisers that a loop resets before reading; tsc's definite-assignment
      // analysis already catches the real bug (a read before any write).
      'no-useless-assignment': 'off',
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['vitest.config.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
);
