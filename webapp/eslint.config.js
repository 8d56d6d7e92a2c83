import js from '@eslint/js'
import globals from 'globals'
import reactHooks from 'eslint-plugin-react-hooks'
import reactRefresh from 'eslint-plugin-react-refresh'
import tseslint from 'typescript-eslint'
import { defineConfig, globalIgnores } from 'eslint/config'

// Feature folders are flat (src/features/<name>/<file>), so from inside one, `../<name>` is always another
// feature. Features share code only through the shared layers (components, lib, store, i18n, layouts, types);
// a piece two features need moves there (the bulletproof-react rule: code flows app -> features -> shared).
const ANOTHER_FEATURE = {
  regex: '^\\.\\./[^./]|(^|/)features/',
  message: 'A feature may not import another feature: move the shared piece to components/ or lib/.',
}
const A_FEATURE = {
  regex: '(^|/)features/',
  message: 'Shared layers may not import a feature: the piece belongs in the shared layer, or the feature keeps it.',
}

export default defineConfig([
  globalIgnores(['dist', 'node_modules', 'src/store/generated']),
  {
    files: ['**/*.{ts,tsx}'],
    extends: [
      js.configs.recommended,
      tseslint.configs.recommended,
      reactHooks.configs.flat['recommended-latest'],
      reactRefresh.configs.vite,
    ],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
    },
  },
  {
    files: ['src/features/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [ANOTHER_FEATURE] }] },
  },
  {
    files: ['src/{components,lib,layouts,types}/**/*.{ts,tsx}', 'src/store/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [A_FEATURE] }] },
  },
  {
    files: ['src/test/**', 'src/**/*.test.{ts,tsx}'],
    rules: { 'react-refresh/only-export-components': 'off' },
  },
])
