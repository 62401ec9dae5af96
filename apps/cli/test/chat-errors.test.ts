// `toolwire chat` when something is missing or wrong: one line on stderr, the right exit code.
import { createConnection } from 'node:net';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createSandbox,
  expectOneLineError,
  nativeOnlyConfig,
  runToolwire,
  type Sandbox,
} from './helpers.js';

let sandbox: Sandbox;
let fake: FakeProvider | undefined;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  sandbox.cleanup();
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runToolwire(args, { env: { ...sandbox.env, ...env } });

describe('toolwire chat errors', () => {
  it('says exactly what to configure when no provider is given and no Ollama answers', async (context) => {
    if (await portOpen(11434)) context.skip('an Ollama answers on 127.0.0.1:11434 on this machine');
    const env = { ...sandbox.env };
    delete (env as Record<string, string | undefined>).OLLAMA_HOST;
    const result = await runToolwire(['chat', '--once', 'hi'], { env });
    expect(result.code).toBe(2);
    const line = expectOneLineError(result.stderr);
    for (const hint of [
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      'XAI_API_KEY',
      'OLLAMA_HOST',
      '--provider',
      '127.0.0.1:11434',
    ]) {
      expect(line).toContain(hint);
    }
  });

  it('reports an unreachable provider in one line with exit 1', async () => {
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      'http://127.0.0.1:9/v1',
      '--api-key',
      'k',
      '--once',
      'hi',
    ]);
    expect(result.code).toBe(1);
    expect(expectOneLineError(result.stderr)).toMatch(
      /cannot connect to openai at http:\/\/127\.0\.0\.1:9\/v1/,
    );
  });

  it('bounds --once by --timeout-ms: a provider that never answers ends it with exit 1', async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ hang: true }] });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--timeout-ms',
      '700',
      '--once',
      'hi',
    ]);
    expect(result.code).toBe(1);
    expect(expectOneLineError(result.stderr)).toBe(
      `error: no answer from openai at ${fake.url}/v1 within 700 ms (--timeout-ms; 0 waits as long as it takes)`,
    );
    expect(result.stdout).toBe('');
    const bad = await run(['chat', '--timeout-ms', 'soon', '--once', 'hi']);
    expect(bad.code).toBe(2);
  });

  it('reports a rejected API key with exit 2', async () => {
    fake = await startFakeProvider({ provider: 'anthropic', turns: [{ error: { status: 401 } }] });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--provider',
      'anthropic',
      '--model',
      'claude-sonnet-4-6',
      '--base-url',
      fake.url,
      '--api-key',
      'wrong',
      '--once',
      'hi',
    ]);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toContain(`anthropic at ${fake.url}`);
  });

  it('needs an API key for the hosted providers', async () => {
    const result = await run(['chat', '--provider', 'xai', '--once', 'hi']);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toContain('XAI_API_KEY');
  });

  it('rejects bad flag combinations and values with exit 2', async () => {
    const provider = await run(['chat', '--provider', 'acme', '--once', 'hi']);
    expect(provider.code).toBe(2);
    expect(expectOneLineError(provider.stderr)).toContain(
      'openai, openai-responses, anthropic, ollama, xai, google',
    );
    const mode = await run(['chat', '--mode', 'fast', '--once', 'hi']);
    expect(mode.code).toBe(2);
    const json = await run(['chat', '--json', '--provider', 'ollama', '--model', 'x']);
    expect(json.code).toBe(2);
    expect(expectOneLineError(json.stderr)).toContain('--json needs --once');
    const empty = await run(['chat', '--once', '  ']);
    expect(empty.code).toBe(2);
  });

  it('refuses the interactive mode without a terminal', async () => {
    const result = await run(['chat', '--provider', 'ollama', '--model', 'x']);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toContain('--once');
  });
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
