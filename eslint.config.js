// Lint: typescript-eslint's recommended rules, plus the type-aware checks that catch what tsc does not:
// a promise nobody awaits, a switch that forgets a case of a union.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      '.tap/',
      'admin/dashboard/',
      'console/pages/',
      'test/fixtures/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      // tsconfig.check.json is the one project that holds every linted file: the sources, test/ and this file.
      parserOptions: { project: ['./tsconfig.check.json'], tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // tap's t.test() returns a promise that tap itself waits on (a parent ends after its subtests), and a failed
        // subtest is reported, not rejected: leaving it unawaited is how tap tests are written.
        { allowForKnownSafePromises: [{ from: 'package', package: '@tapjs/core', name: 'PromiseWithSubtest' }] },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
