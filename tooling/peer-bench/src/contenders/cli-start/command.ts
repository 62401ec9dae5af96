// Contender: one whole `toolwire` command (or `node -e 0`, the floor) from spawn to exit, run
// `warmup` times untimed (Node's compile cache fills), then `iterations` times; reports the median.
// argv: version | code-run | code-run-off | node
import { iterationsFromEnv, report } from '../../harness.js';
import { cliBin, median, scratchHome, timeCommand } from './cli.js';

const which = process.argv[2];
// `code run` on an empty config: no MCP server, only the sandbox (and the checker).
const { dir, env } = scratchHome(which?.startsWith('code-run') ? {} : undefined);
const commands: Record<string, { args: string[]; input?: string }> = {
  version: { args: [cliBin, '--version'] },
  'code-run': { args: [cliBin, 'code', 'run', '-'], input: 'return 1' },
  'code-run-off': { args: [cliBin, 'code', 'run', '-', '--typecheck', 'off'], input: 'return 1' },
  node: { args: ['-e', '0'] },
};
const command = commands[which ?? ''];
if (!command) throw new Error(`cli-start: unknown command ${which}`);
const { warmup, iterations } = iterationsFromEnv({ warmup: 2, iterations: 7 });
const run = () =>
  timeCommand(process.execPath, command.args, {
    cwd: dir,
    env,
    ...(command.input !== undefined ? { input: command.input } : {}),
  });
for (let i = 0; i < warmup; i++) await run();
const times: number[] = [];
for (let i = 0; i < iterations; i++) times.push(await run());
report(median(times));
