// Lint rules that also fence the architecture: only the index store imports LanceDB, only the fact-log
// module writes logs/, and the core never imports a frontend.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-bench/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**', 'src/mcp/**', 'src/daemon/**', 'src/server/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/cli/**', '**/mcp/**'], message: 'the core never imports a frontend' }] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/indexer/store.ts', 'src/indexer/lance-load.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "ImportDeclaration[source.value='@lancedb/lancedb']", message: 'only src/indexer/store.ts (through lance-load.ts) uses LanceDB' },
        { selector: "ImportExpression[source.value='@lancedb/lancedb']", message: 'only src/indexer/store.ts (through lance-load.ts) uses LanceDB' },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
);
