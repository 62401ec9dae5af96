// What the CLI loads before it does anything: `--version` and `--help` read no config and load
// none of the packages a command uses. The built binary runs with a module-loader hook
// (node:module `register`) that writes down every URL it resolves.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, createSandbox, type Sandbox } from './helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}`;

/** Runs the binary with `args`; returns its output and the packages it loaded. */
async function loadsOf(
  args: string[],
): Promise<{ stdout: string; code: number | null; packages: string[] }> {
  const register = join(sandbox.home, 'record-loads.mjs');
  const log = join(sandbox.home, 'loaded.txt');
  writeFileSync(log, '');
  writeFileSync(
    register,
    `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), { data: { log: ${JSON.stringify(log)} } });`,
  );
  const child = spawn(process.execPath, ['--import', register, BIN, ...args], {
    cwd: sandbox.home,
    env: sandbox.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const packages = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n')) {
    const match =
      /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url) ??
      /\/(?:packages|apps)\/([^/]+)\/dist\//.exec(url);
    if (match) packages.add(match[1]!);
  }
  return { stdout, code, packages: [...packages].sort() };
}

describe('toolwire start-up', () => {
  it('answers --version with commander alone: no config, no registry, no schema', async () => {
    // A config file that does not parse: --version must not read it.
    writeFileSync(join(sandbox.home, 'toolwire.config.json'), '{ not json');
    const { stdout, code, packages } = await loadsOf(['--version']);
    expect({ code, stdout: stdout.trim() }).toEqual({ code: 0, stdout: '0.1.0' });
    expect(packages).toEqual(['commander', 'picocolors']);
  });

  it('prints a command help without loading what the command uses', async () => {
    const { stdout, code, packages } = await loadsOf(['code', 'run', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('--typecheck <mode>');
    expect(packages).toEqual(['commander', 'picocolors']);
  });
});
