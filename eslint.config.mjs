import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', '.nx/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      // Services never import each other: they share only libs/contracts and libs/platform (ARCHITECTURE.md section 1).
      '@nx/enforce-module-boundaries': ['error', {
        allow: [],
        enforceBuildableLibDependency: false,
        depConstraints: [
          { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
          { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib'] },
          { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', 'type:service'] },
        ],
      }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
    },
  },
];
