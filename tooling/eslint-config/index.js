// Shared flat config for every package and app. Type-aware rules run on `src/**` only (not tests,
// benches or fixtures): they need the type checker, which costs lint time on a 2-core machine, and
// shipped code is where an unhandled rejection hurts.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Package boundaries (STYLE.md): data flows apps -> agent/forwarder/codemode ->
// mcp/executor/adapters -> config -> schema. The source of each package may import only the
// Toolwire packages listed here; tests, benches and apps are free. A package not listed (apps,
// tooling) is not restricted beyond the no-deep-imports rule.
const ALLOWED_IMPORTS = {
  '@toolwire/schema': [],
  '@toolwire/config': ['schema'],
  '@toolwire/openai': ['schema'],
  '@toolwire/anthropic': ['schema'],
  '@toolwire/ollama': ['schema'],
  '@toolwire/executor': ['schema'],
  '@toolwire/mcp': ['schema', 'config'],
  '@toolwire/codemode': ['schema', 'config', 'executor'],
  '@toolwire/forwarder': ['schema', 'config'],
  '@toolwire/agent': ['schema'],
  '@toolwire/testing': ['schema'],
};

const DEEP_IMPORT = {
  regex: '^@toolwire/[^/]+/(src|dist)(/|$)',
  message: 'Import a package by its entry (or an exported subpath), never its src or dist files.',
};

/** One block per package directory (`packages/<name>` holds `@toolwire/<name>`). */
function boundaryBlocks() {
  const blocks = Object.entries(ALLOWED_IMPORTS).map(([name, allowed]) => {
    const self = name.slice('@toolwire/'.length);
    return {
      files: [`packages/${self}/src/**/*.ts`],
      // Tests and the test-support code under src/testing may reach any package.
      ignores: ['**/*.test.ts', '**/src/testing/**'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              DEEP_IMPORT,
              {
                regex: `^@toolwire/(?!(${[self, ...allowed].join('|')})(/|$))`,
                message: `Package boundary: the source of ${name} may import ${allowed.length > 0 ? allowed.map((p) => `@toolwire/${p}`).join(', ') : 'no other Toolwire package'} (STYLE.md: data flows one way; an interface two packages share belongs in @toolwire/schema).`,
              },
            ],
          },
        ],
      },
    };
  });
  return [
    {
      files: ['**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [DEEP_IMPORT] }] },
    },
    ...blocks,
  ];
}

/** Test files under the no-sleep rule (the rest of the tree still has sleeps to replace). */
// Every test file and the contract suites the packages run (their fixtures, which play slow
// upstreams on purpose, are left out by the global `fixtures` ignore).
const SLEEPLESS_TESTS = ['**/*.test.ts', '**/test/**/*.ts', 'packages/*/src/testing/**/*.ts'];

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Typed rules over shipped source: a promise is awaited, returned, `.catch`ed or marked `void`. */
const typedSourceBlock = {
  files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
  ignores: ['**/*.test.ts', '**/src/testing/**'],
  languageOptions: {
    parserOptions: { projectService: true, tsconfigRootDir: repoRoot },
  },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '**/.turbo/**',
      '**/fixtures/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        Headers: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { fixStyle: 'separate-type-imports' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  ...boundaryBlocks(),
  typedSourceBlock,
  {
    // The binaries' launchers are CommonJS on purpose: they must run on any Node to say which
    // version is needed (apps/*/bin/*.cjs).
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.test.ts', '**/test/**', '**/bench/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  // Files and functions of one concern: a warning past these sizes says where to split.
  {
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    // The test kit (fixtures, contract suites) is measured by its suites, not by these sizes.
    ignores: ['**/*.test.ts', '**/src/testing/**', 'packages/testing/**'],
    rules: {
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['warn', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  // Tests wait for conditions (events, `vi.waitFor`), never for a fixed time: a sleep passes on an
  // idle machine and fails on a loaded one. On in the packages whose tests keep to it.
  {
    files: SLEEPLESS_TESTS,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // `new Promise((r) => setTimeout(r, ms))`; a timer that rejects (a guard) is left alone.
          selector:
            "NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
          message:
            'A fixed sleep in a test: wait for the condition instead (vi.waitFor, an event, a promise the code gives).',
        },
      ],
    },
  },
);
