import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', '**/.ai/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Named exports only.' },
      ],
    },
  },
  {
    // Tool configuration files are loaded through their default export.
    files: ['*.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', 'bin/**/*.js', '*.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    // The binary's entry is CommonJS (bin/package.json): no ES module loader on the fast path.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The worked example's app: a Node server and scripts, and a browser client.
    files: ['examples/**/*.js', 'examples/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['examples/**/client/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
