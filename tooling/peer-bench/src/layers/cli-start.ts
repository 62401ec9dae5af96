// CLI start layer: what `toolwire` costs before and around the work it was asked for. Whole
// commands from spawn to exit, against `node -e 0` (Node's own start) and, for `tools list`,
// against spawning and listing the same servers by hand.
import { fileURLToPath } from 'node:url';
import type { Layer } from '../harness.js';

const script = (name: string): string =>
  fileURLToPath(new URL(`../contenders/cli-start/${name}.ts`, import.meta.url));

const node = {
  name: 'node -e 0',
  role: 'floor' as const,
  script: script('command'),
  args: ['node'],
};
const tools = 'toolwire tools list';

export function cliStartLayers(): Layer[] {
  return [
    {
      name: 'CLI start, toolwire --version',
      unit: 'ms/op',
      contenders: [
        {
          name: 'toolwire --version',
          role: 'toolwire',
          script: script('command'),
          args: ['version'],
        },
        node,
      ],
      goals: [{ subject: 'toolwire --version', against: 'node -e 0', ratio: 2 }],
      limits: [{ subject: 'toolwire --version', limit: 200 }],
      notes: [
        "Spawn to exit of the built binary (apps/cli/dist/main.js) in a scratch HOME; 2 untimed runs first (Node's compile cache, which the CLI turns on, fills), then the median of 7. The floor is Node starting and exiting.",
      ],
    },
    {
      name: 'CLI start, toolwire tools list on the embedded default',
      unit: 'ms/op',
      contenders: [{ name: tools, role: 'toolwire', script: script('tools-list') }],
      goals: [],
      limits: [{ subject: `${tools} overhead over the servers`, limit: 250 }],
      notes: [
        '`toolwire tools list --json` with no config (the fs and memory stdio servers) alternating, in one process, with the same two servers spawned, initialized and listed in parallel with the MCP SDK client; the overhead row is the median of the paired differences.',
      ],
    },
    {
      name: 'CLI start, toolwire code run of `return 1` on an empty config',
      unit: 'ms/op',
      contenders: [
        {
          name: 'toolwire code run',
          role: 'toolwire',
          script: script('command'),
          args: ['code-run'],
        },
        {
          name: 'toolwire code run --typecheck off',
          role: 'toolwire',
          script: script('command'),
          args: ['code-run-off'],
        },
        node,
      ],
      goals: [],
      limits: [
        { subject: 'toolwire code run', limit: 1500 },
        { subject: 'toolwire code run --typecheck off', limit: 600 },
      ],
      notes: [
        '`echo "return 1" | toolwire code run -` with `{}` as the config (no MCP server): the CLI, the QuickJS sandbox and, with the type check, the TypeScript checker\'s worker (TypeScript loaded, its lib files parsed). Median of 7 after 2 untimed runs.',
      ],
    },
  ];
}
