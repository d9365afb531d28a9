// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { posix } from 'node:path';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * The product (src/) is what ships: tools (tools/: simulator, Temporal server builds, stacks, demo,
 * drills, scripts), benchmarks and tests import it, never the other way.
 */
const productBoundary = {
  group: ['**/tools', '**/tools/**', '**/bench', '**/bench/**', '**/test', '**/test/**'],
  message: 'The product (src/) never imports tools/, bench/ or test/: they import it.',
};

/**
 * The walls between the folders of src/: a file under `src/<from>/` (a folder of src/, or one of
 * src/order-events/) imports nothing of `to` (the folders or files of src/ named, without `.ts`),
 * type-only imports and `export … from` included (no `allowTypeImports`): a type across a wall
 * ties the layers as a value does. test/house/import-graph.test.ts holds them on the import graph
 * too (`require()` included), lints a made-up import across each, and finds no import cycle in
 * src/.
 */
export const walls = [
  {
    from: 'activities',
    to: ['workflows', 'order-events/workflows'],
    why: 'workflows call activities (by type), never the other way; what both need lives in src/shared/',
  },
  {
    from: 'order-events/activities',
    to: ['workflows', 'order-events/workflows'],
    why: "workflows call activities, never the other way; what both need is order events' contract",
  },
  {
    from: 'order-events/workflows',
    to: ['activities', 'order-events/activities', 'order-events/config'],
    why: "they see their activities through the contract's OrderEventActivities: the workflow bundle holds no activity code",
  },
  {
    from: 'order-events/contract',
    to: [
      'order-events/activities',
      'order-events/workflows',
      'order-events/config',
      'activities',
      'workflows',
      'client',
      'cli',
      'worker',
      'build-worker',
    ],
    why: 'the contract of order events sits below both layers and every reader of it',
  },
  {
    from: 'observability',
    to: ['workflows', 'order-events/workflows'],
    why: 'it reads what the workflows write (src/shared/), not their code',
  },
  {
    from: 'doctor',
    to: ['cli'],
    why: 'the CLI renders the doctor, not the other way',
  },
  {
    from: 'hotel-api',
    to: ['config', 'activities', 'workflows', 'client', 'cli', 'order-events'],
    why: 'the supplier client sits under the activities: it imports only its own files and src/shared/',
  },
  {
    from: 'shared',
    to: [
      'activities',
      'workflows',
      'client',
      'cli',
      'doctor',
      'worker',
      'worker-config',
      'build-worker',
      'order-events',
    ],
    why: 'the contract sits under every layer that shares it',
  },
];

/**
 * `no-restricted-imports` patterns of the walls of `src/<from>/`: a relative path that climbs to a
 * walled folder or file (from `src/<from>/` or any folder below it).
 */
const wallPatterns = (from) =>
  walls
    .filter((w) => w.from === from)
    .map((w) => ({
      regex: `^(?:\\.\\./)*(?:${w.to.map((to) => posix.relative(`src/${from}`, `src/${to}`).replaceAll('.', '\\.')).join('|')})(?:/|$)`,
      message: `src/${w.from}/ imports nothing of ${w.to.map((t) => `src/${t}`).join(', ')}: ${w.why}.`,
    }));

/** What workflow code may import (the sandbox's rules), with `walls` patterns of its own. */
const workflowSandbox = (walled) => ({
  paths: nodeBuiltins.map((name) => ({
    name,
    message: 'Workflow code must be deterministic: no Node built-ins.',
  })),
  patterns: [
    productBoundary,
    ...walled,
    {
      regex: '^(?!@temporalio/workflow$|@temporalio/common$|\\.{1,2}/)',
      message:
        'Workflow files may import only @temporalio/workflow, @temporalio/common and relative pure modules.',
    },
    {
      group: ['**/activities', '**/activities/**'],
      allowTypeImports: true,
      message: 'Reference activities with `import type` and proxyActivities.',
    },
    {
      // The sandbox evaluates the workflow modules once per worker and freezes them for every
      // workflow (preloadModules, src/workflow-bundle.ts); zod's schemas cannot be frozen, so zod
      // and the schemas are loaded per workflow, by input-checks.ts only, for inputs the fast path
      // cannot vouch for.
      group: ['**/shared/booking-contract', '**/shared/guard-contract'],
      allowTypeImports: true,
      message:
        'Workflows import values from booking-values/guard-values and check inputs with input-checks.ts',
    },
  ],
});

export default tseslint.config(
  { ignores: ['node_modules/', '**/dist/', '.data/', 'bench/results/', 'test/histories/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test's describe/it return promises the runner itself awaits.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [productBoundary] }] },
  },
  {
    // Configuration is a leaf: it reads and checks the environment, and imports nothing else of
    // the product (the layers own the types it hands them; the compiler matches them). Order
    // events' part of it lives with them (src/order-events/config.ts), a leaf too that reads its
    // secret as config does (value-or-file.ts); the account ids come from
    // src/shared/supplier-accounts.ts, which imports nothing.
    files: ['src/config/**/*.ts', 'src/order-events/config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            productBoundary,
            {
              regex:
                '^\\.\\./(?!order-events/config$|shared/supplier-accounts$|config/value-or-file$)',
              message:
                'src/config/ imports nothing else of the product but src/order-events/config.ts and src/shared/supplier-accounts.ts, which import nothing of it but value-or-file.ts.',
            },
          ],
        },
      ],
    },
  },
  // The walls (`walls` above). The zod-free files of src/shared/ repeat theirs below: a later
  // block's options for a rule replace an earlier one's.
  ...[
    'activities',
    'observability',
    'doctor',
    'hotel-api',
    'shared',
    'order-events/activities',
    'order-events/contract',
  ].map((from) => ({
    files: [`src/${from}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns: [productBoundary, ...wallPatterns(from)] }],
    },
  })),
  {
    // What the client and the workflows share lives in src/shared/, not in a workflow module.
    files: ['src/client/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            productBoundary,
            {
              group: ['**/workflows/**'],
              allowTypeImports: true,
              message: 'Clients import workflow types only; shared values live in src/shared/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O packages.
    files: ['src/workflows/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', workflowSandbox([])] },
  },
  {
    // Order events' workflows: the same sandbox, and their walls.
    files: ['src/order-events/workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', workflowSandbox(wallPatterns('order-events/workflows'))],
    },
  },
  {
    // The zod-free part of the contract, which workflows import.
    files: [
      'src/shared/booking-values.ts',
      'src/shared/guard-values.ts',
      'src/shared/input-fast-path.ts',
      'src/shared/fast-path-checks.ts',
      'src/shared/duration.ts',
      'src/shared/supplier-accounts.ts',
      'src/shared/defined.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'zod', message: 'Workflows import this module: no zod here' }],
          patterns: [
            productBoundary,
            ...wallPatterns('shared'),
            {
              group: ['./booking-contract', './guard-contract', './absent'],
              allowTypeImports: true,
              message: 'Workflows import this module: types only from the zod contracts',
            },
          ],
        },
      ],
    },
  },
  {
    // The zod-free part of order events' contract, which workflows import.
    files: ['src/order-events/contract/event.ts', 'src/order-events/contract/delivery.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'zod', message: 'Workflows import this module: no zod here' }],
          patterns: [
            productBoundary,
            ...wallPatterns('order-events/contract'),
            {
              group: ['**/shared/booking-contract', '**/shared/guard-contract', './body-schemas'],
              allowTypeImports: true,
              message: 'Workflows import this module: types only from the zod contracts',
            },
          ],
        },
      ],
    },
  },
  {
    // The workflow bundle's modules are evaluated once per worker and shared by every workflow
    // (preloadModules, src/workflow-bundle.ts): a module-level variable would carry one
    // workflow's state into another's.
    files: [
      'src/workflows/**/*.ts',
      'src/order-events/workflows/**/*.ts',
      'src/order-events/contract/*.ts',
      'src/shared/**/*.ts',
      'src/catalogue/**/*.ts',
      'src/config/defaults.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Program > VariableDeclaration[kind!="const"], Program > ExportNamedDeclaration > VariableDeclaration[kind!="const"]',
          message:
            'Workflow modules are shared by every workflow of a worker: no module-level let or var.',
        },
      ],
    },
  },
);
