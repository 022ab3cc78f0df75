// One linter for the whole tree: typescript-eslint's recommended rules plus the
// project's own: no `any`, no console in src, no focused or skipped tests.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': 'error',
      eqeqeq: ['error', 'always'],
      'no-restricted-properties': [
        'error',
        ...['it', 'describe', 'test'].flatMap((object) =>
          ['only', 'skip', 'todo'].map((property) => ({ object, property, message: 'every test runs, and can fail' })),
        ),
      ],
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-console': 'error' } },
  // The README's Jest example, run by test/package.test.ts in a project of its own: CommonJS.
  {
    files: ['test/package/jest/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node, ...globals.jest } },
  },
  // The inspector's page scripts run in the browser.
  { files: ['src/control/ui/assets/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);
