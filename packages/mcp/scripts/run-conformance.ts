// Drives the official MCP conformance runner (@modelcontextprotocol/conformance) against the
// registry's client (conformance-client.ts). Shared by `pnpm run conformance` and the test.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runner = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);
const client = fileURLToPath(new URL('./conformance-client.ts', import.meta.url));
export const baselinePath = fileURLToPath(new URL('../conformance-baseline.yml', import.meta.url));

/**
 * The runner's scenario servers listen on every interface; when we can (Linux, root), run it in
 * a private network namespace where only loopback exists, so nothing is reachable from outside.
 */
function canIsolate(): boolean {
  if (process.platform !== 'linux') return false;
  return (
    spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0
  );
}

export interface ConformanceRun {
  status: number;
  output: string;
  isolated: boolean;
  /** Check totals from the runner's summary line. */
  passed: number;
  failed: number;
  warnings: number;
}

/** Runs `conformance client` with the given selection (`--scenario x`, `--requirements 2026-07-28`, `--suite core`). */
export function runConformance(
  selection: string[],
  options: { baseline?: boolean; timeoutMs?: number } = {},
): Promise<ConformanceRun> {
  // The runner splits the command on spaces and appends the scenario server's URL.
  const command = `${process.execPath} --import tsx --conditions=@toolwire/source ${client}`;
  const args = [
    runner,
    'client',
    '--command',
    command,
    '--timeout',
    String(options.timeoutMs ?? 60_000),
    ...selection,
    ...(options.baseline ? ['--expected-failures', baselinePath] : []),
  ];
  const isolated = canIsolate();
  const [program, argv] = isolated
    ? [
        'unshare',
        ['-n', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', process.execPath, ...args],
      ]
    : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(program as string, argv as string[], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const total =
        /Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/.exec(output) ??
        /Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings/.exec(output);
      resolve({
        status: code ?? 1,
        output,
        isolated,
        passed: Number(total?.[1] ?? 0),
        failed: Number(total?.[2] ?? 0),
        warnings: Number(total?.[3] ?? 0),
      });
    });
  });
}
