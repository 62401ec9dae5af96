// A few official conformance scenarios against the passthrough route on every test run (the full
// suites run with `pnpm --filter @toolwire/forwarder conformance`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarder, type Forwarder } from '../src/index.js';
import { startConformanceUpstream, type RunningFixture } from './fixtures/conformance-upstream.js';
import { createHttpToolSource, type HttpToolSource } from './helpers/http-tool-source.js';

const require = createRequire(import.meta.url);
const cli = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'dist', 'index.js');

function conformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('conformance (passthrough route)', () => {
  let upstream: RunningFixture;
  let source: HttpToolSource;
  let forwarder: Forwarder;
  let target: string;

  beforeAll(async () => {
    upstream = await startConformanceUpstream();
    source = createHttpToolSource({ conf: upstream.url });
    await source.start();
    forwarder = createForwarder({
      source,
      config: { mcpServers: { conf: { url: upstream.url } } },
      audit: false,
    });
    target = `${(await forwarder.listen()).url}/servers/conf/mcp`;
  });

  afterAll(async () => {
    await forwarder?.close();
    await source?.close();
    await upstream?.close();
  });

  for (const scenario of [
    'server-initialize',
    'tools-call-with-progress',
    'tools-call-sampling',
    'resources-subscribe',
  ]) {
    it(`passes 2025-11-25 ${scenario} (conformance 0.1.16)`, async () => {
      const { code, output } = await conformance([
        cli('conformance-legacy'),
        'server',
        '--url',
        target,
        '--scenario',
        scenario,
      ]);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      expect(code).toBe(0);
    }, 60_000);
  }

  for (const scenario of [
    'tools-call-with-progress',
    'input-required-result-multi-round',
    'http-header-validation',
  ]) {
    it(`passes 2026-07-28 ${scenario} (conformance 0.2.0-alpha.12)`, async () => {
      const { output } = await conformance([
        cli('@modelcontextprotocol/conformance'),
        'server',
        '--url',
        target,
        '--scenario',
        scenario,
      ]);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed/);
    }, 60_000);
  }
});
