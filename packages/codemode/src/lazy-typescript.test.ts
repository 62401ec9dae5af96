// `typescript` is an optional peer dependency: the host never loads it, and a user with type
// checking off never loads it at all. A child process runs code mode from source with a
// module-loader hook (node:module `register`) that writes down every URL it resolves.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'toolwire-lazy-ts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, resolved.url + '\\n');
  return resolved;
}`;
const register = join(dir, 'record-loads.mjs');
writeFileSync(
  register,
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), {
  data: { log: process.env.LOAD_LOG },
});`,
);
const entry = fileURLToPath(new URL('./index.ts', import.meta.url));
const typescriptModule = /\/typescript\/lib\/typescript\.js$/;

/** Runs `return 6 * 7` through code mode in a fresh process; returns the result and the URLs loaded. */
async function runInChild(
  typecheck: 'off' | 'error',
): Promise<{ result: unknown; urls: string[] }> {
  const log = join(dir, `loaded-${typecheck}.txt`);
  writeFileSync(log, '');
  const script = `
    const { runCode } = await import(${JSON.stringify(entry)});
    const result = await runCode('const n: number = 6; return n * 7;', { source: [], typecheck: ${JSON.stringify(typecheck)} });
    console.log(JSON.stringify({ ok: result.ok, value: result.value, diagnostics: result.diagnostics }));`;
  const child = spawn(
    process.execPath,
    [
      '--conditions=@toolwire/source',
      '--import',
      register,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      script,
    ],
    { env: { ...process.env, LOAD_LOG: log }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, stderr).toBe(0);
  return {
    result: JSON.parse(stdout.trim().split('\n').at(-1)!) as unknown,
    urls: readFileSync(log, 'utf8').split('\n'),
  };
}

describe('code mode without the compiler', () => {
  it('runs TypeScript with type checking off without ever loading typescript', async () => {
    const { result, urls } = await runInChild('off');
    expect(result).toEqual({ ok: true, value: 42, diagnostics: [] });
    // The log works: code mode's own modules are in it.
    expect(urls.some((url) => url.endsWith('/codemode/src/script.ts'))).toBe(true);
    expect(urls.filter((url) => typescriptModule.test(url))).toEqual([]);
  });

  it('type-checks in the checker worker: the host thread still never loads typescript', async () => {
    const { result, urls } = await runInChild('error');
    expect(result).toEqual({ ok: true, value: 42, diagnostics: [] });
    expect(urls.filter((url) => typescriptModule.test(url))).toEqual([]);
  });
});
