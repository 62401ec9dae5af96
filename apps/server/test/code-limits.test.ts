// The limits of POST /api/code seen from outside the gateway: the toolwire-server binary's own
// resident memory while scripts allocate, its event loop while a script's types are checked, and
// what the type checker may read.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  allocationPatterns,
  hostMemorySkipNote,
  runHostMemoryTests,
  mebibytes,
  measurePeak,
  residentBytes,
  runnerOverheadBytes,
  typeLevelBomb,
} from '@toolwire/testing/memory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN_DIR } from './global-setup.js';
import { waitFor } from './helpers.js';

const MiB = 1024 * 1024;
/** The gateway runs /api/code with the executor's default memory limit. */
const memoryBytes = 64 * MiB;
const TOKEN = 'code-limits-token-0123456789';

/** The fields of a CodeRunResult these tests read. */
interface CodeAnswer {
  ok: boolean;
  value?: unknown;
  error?: { kind: string; message: string };
  diagnostics: Array<{ message: string }>;
  typecheckMs: number;
}

describe('POST /api/code on the toolwire-server binary', () => {
  let child: ChildProcess;
  let url: string;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'toolwire-code-limits-'));
    const config = join(directory, 'toolwire.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        nativeTools: ['calculate'],
        mcpServers: {},
        auth: {
          tokens: [{ token: TOKEN, client: 'limited', allow: ['execute_code', 'calculate'] }],
        },
      }),
    );
    writeFileSync(join(directory, 'secret.ts'), `export const secret = 'TOP-SECRET-VALUE';\n`);
    child = spawn(process.execPath, [join(BIN_DIR, 'main.js'), '--config', config, '--port', '0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    url = await waitFor(
      () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(stderr)?.[1],
      `the server to start (stderr: ${stderr})`,
    );
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  });

  const runCode = async (code: string, typecheck = 'off'): Promise<CodeAnswer> => {
    const response = await fetch(`${url}/api/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ code, typecheck }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as CodeAnswer;
  };

  it.skipIf(!runHostMemoryTests)(
    `holds two concurrent allocating runs to 2 × memoryBytes of the server's resident memory${hostMemorySkipNote}`,
    async () => {
      // Both runners started.
      await Promise.all([runCode('return 1'), runCode('return 2')]);
      const pid = child.pid!;
      const baseline = residentBytes(pid);
      const { value: results, peakBytes } = await measurePeak(
        () =>
          Promise.all([
            runCode(allocationPatterns['ArrayBuffers']!),
            runCode(allocationPatterns['big arrays']!),
          ]),
        pid,
      );
      expect(results.map((result) => result.error?.kind)).toEqual(['memory', 'memory']);
      expect(
        mebibytes(peakBytes - baseline),
        `peak ${mebibytes(peakBytes)} MiB over a baseline of ${mebibytes(baseline)} MiB`,
      ).toBeLessThanOrEqual(mebibytes(2 * (memoryBytes + runnerOverheadBytes)));
      expect((await runCode('return "next"')).value).toBe('next');
    },
    60_000,
  );

  it('keeps answering while it type-checks a type-level bomb, and stops the check', async () => {
    let answered = false;
    const bomb = runCode(typeLevelBomb, 'error').finally(() => (answered = true));
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(answered).toBe(false);
    expect(await bomb).toMatchObject({
      ok: false,
      error: { kind: 'typecheck', message: expect.stringMatching(/was stopped/) },
    });
  }, 60_000);

  it('refuses a 3.7 MB script as source-too-large before type-checking it', async () => {
    const result = await runCode(`return ${JSON.stringify('x'.repeat(3_700_000))};`, 'error');
    expect(result).toMatchObject({
      ok: false,
      error: { kind: 'source-too-large' },
      typecheckMs: 0,
    });
  });

  it('type-checks without reading the host files a script names', async () => {
    const result = await runCode(
      `type S = typeof import('${join(directory, 'secret')}');\nconst n: number = (null as unknown as S).secret;\nreturn n;`,
      'warn',
    );
    expect(JSON.stringify(result)).not.toContain('TOP-SECRET');
    expect(result.diagnostics).toMatchObject([{ message: expect.stringMatching(/no modules/) }]);
  });
});
