// The gateway on its embedded default config does not load code mode (the TypeScript checker,
// the QuickJS / isolated-vm sandboxes), the agent or the provider SDKs until they are used: the
// built binary runs with a module-loader hook (node:module `register`) that writes down every URL
// it resolves, and the test reads that list before and after the first `/api/code` call.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN_DIR } from './global-setup.js';
import { modernCall, waitFor } from './helpers.js';

const HOOKS = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}
`;

const REGISTER = `
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), {
  data: { log: process.env.TOOLWIRE_TEST_LOAD_LOG },
});
`;

/** The heavy modules that only code mode, chat and the agent need. */
const HEAVY: Record<string, RegExp> = {
  typescript: /\/typescript\/lib\/typescript\.js$/,
  quickjs: /quickjs/,
  'isolated-vm': /isolated-vm/,
  // Its entry, not the tiny `@toolwire/codemode/settings` the gateway reads at start.
  '@toolwire/codemode': /\/codemode\/dist\/index\.js$/,
  '@toolwire/executor': /\/executor\/dist\/index\.js$/,
  '@toolwire/agent': /\/agent\/dist\/index\.js$/,
  'provider SDKs': /\/(openai|@anthropic-ai\+sdk|@google\+genai|ollama)@/,
};

function loadedHeavy(log: string): string[] {
  const urls = readFileSync(log, 'utf8').split('\n');
  return Object.entries(HEAVY)
    .filter(([, pattern]) => urls.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

describe('toolwire-server on its embedded default', () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    child = undefined;
  });

  it('loads code mode, the sandbox, the agent and the provider SDKs only at first use', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-lazy-'));
    const register = join(dir, 'record-loads.mjs');
    const log = join(dir, 'loaded.txt');
    writeFileSync(register, REGISTER);
    writeFileSync(log, '');
    // No --config and no toolwire.config.json in the working directory: the embedded default.
    child = spawn(
      process.execPath,
      ['--import', register, join(BIN_DIR, 'main.js'), '--port', '0'],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), TOOLWIRE_TEST_LOAD_LOG: log },
      },
    );
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const url = await waitFor(
      () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(err)?.[1],
      `the server to start (stderr: ${err})`,
    );
    // Idle, then serving MCP: listing and a forwarded call load nothing of code mode.
    const listed = await modernCall(`${url}/mcp`, 'tools/list', {});
    expect(JSON.stringify(listed.body)).toContain('memory__');
    const calc = await modernCall(`${url}/mcp`, 'tools/call', {
      name: 'calculate',
      arguments: { expression: '6 * 7' },
    });
    expect(JSON.stringify(calc.body)).toContain('42');
    expect(readFileSync(log, 'utf8')).toMatch(/forwarder\/dist\/index\.js/);
    expect(loadedHeavy(log)).toEqual([]);

    const response = await fetch(`${url}/api/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code: 'const r = await tools.calculate({ expression: "2 + 3" }); return r;',
      }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { ok: boolean; value: unknown };
    expect(result.ok).toBe(true);
    expect(JSON.stringify(result.value)).toContain('5');
    // The QuickJS engine itself loads in the executor's worker thread, and TypeScript in the type
    // checker's (code mode's host thread never loads it): both start without the host's flags
    // (so without this hook); the run's answer above is what shows they ran.
    expect(loadedHeavy(log)).toEqual(
      expect.arrayContaining(['@toolwire/codemode', '@toolwire/executor']),
    );
    expect(loadedHeavy(log)).not.toContain('typescript');
  });
});
