/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
// Code mode on the toolwire-server binary: warm in the background once it listens, and held to
// `codeMode.limits` wherever it runs a script (execute_code on /mcp, the chat endpoints, the
// dashboard's playground), with execute_code's own timeoutMs inside those limits.
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernCall, startBinary, waitFor, type Binary } from './helpers.js';

const LIMITS = { timeoutMs: 1500, memoryMb: 16, maxOutputKb: 1, maxToolCalls: 2 };

function logLines(stdout: string): Array<Record<string, any>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>);
}

describe('code mode on the toolwire-server binary', () => {
  let bin: Binary;
  let fake: FakeProvider;

  const executeCode = async (args: Record<string, unknown>) => {
    const answer = await modernCall(`${bin.url}/mcp`, 'tools/call', {
      name: 'execute_code',
      arguments: args,
    });
    expect(answer.status).toBe(200);
    return answer.body.result.structuredContent as Record<string, any>;
  };

  beforeAll(async () => {
    fake = await startFakeProvider({ provider: 'openai' });
    bin = await startBinary({
      nativeTools: ['calculate'],
      mcpServers: {},
      codeMode: { enabled: true, limits: LIMITS },
      chat: { provider: 'openai', baseUrl: `${fake.url}/v1`, apiKey: 'k', model: 'fake-model' },
    });
  });
  afterAll(async () => {
    await bin?.stop();
    await fake?.close();
  });

  it('warms up after it listens, not before: one script run end to end in the background', async () => {
    const warm = await waitFor(
      () => logLines(bin.stdout()).find((line) => line.msg === 'code mode warm'),
      'the warm-up to finish',
    );
    expect(warm).toMatchObject({ reason: 'codeMode is on', ms: expect.any(Number) });
    const messages = logLines(bin.stdout()).map((line) => line.msg);
    expect(messages.indexOf('listening')).toBeGreaterThanOrEqual(0);
    expect(messages.indexOf('listening')).toBeLessThan(messages.indexOf('code mode warm'));
    const overview = (await (await fetch(`${bin.url}/api/overview`)).json()) as any;
    expect(overview.gateway.sandbox).toBe('ready');
  });

  it("ends /mcp's execute_code at codeMode.limits.timeoutMs, or sooner at its own timeoutMs", async () => {
    const listed = await modernCall(`${bin.url}/mcp`, 'tools/list', {});
    const tool = listed.body.result.tools.find((t: any) => t.name === 'execute_code');
    expect(tool.inputSchema.properties.timeoutMs.description).toContain('most: 1500');

    expect(await executeCode({ code: 'while (true) {}' })).toMatchObject({
      ok: false,
      error: { kind: 'timeout', message: expect.stringContaining('within 1500 ms') },
    });
    expect(await executeCode({ code: 'while (true) {}', timeoutMs: 300 })).toMatchObject({
      error: { kind: 'timeout', message: expect.stringContaining('within 300 ms') },
    });
    expect(await executeCode({ code: 'while (true) {}', timeoutMs: 600_000 })).toMatchObject({
      error: { kind: 'timeout', message: expect.stringContaining('within 1500 ms') },
    });
  });

  it("holds /mcp's execute_code to the memory, output and tool-call limits", async () => {
    const memory = await executeCode({
      code: 'const a: string[] = []; while (true) a.push("x".repeat(1 << 20) + a.length);',
    });
    expect(memory.error.kind).toBe('memory');
    const output = await executeCode({
      code: 'for (let i = 0; i < 100; i++) console.log("y".repeat(100)); return "done";',
    });
    expect(output.ok).toBe(true);
    // 10 000 bytes printed, about 1 KB kept (a line or so over, with the newlines).
    expect(output.logs.length).toBeLessThanOrEqual(12);
    expect(output.output.length).toBeLessThan(1300);
    const calls = await executeCode({
      code: [
        'for (let i = 0; i < 3; i++) await calculate({ expression: `${i} + 1` });',
        'return "three calls";',
      ].join('\n'),
    });
    expect(calls.error.kind).toBe('too-many-tool-calls');
  });

  it('applies the same limits to the playground (/api/code)', async () => {
    const response = await fetch(`${bin.url}/api/code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'while (true) {}', typecheck: 'off' }),
    });
    expect(await response.json()).toMatchObject({
      ok: false,
      error: { kind: 'timeout', message: expect.stringContaining('within 1500 ms') },
    });
  });

  it('applies them to code mode on the chat endpoints', async () => {
    fake.reset();
    fake.push(
      {
        toolCalls: [{ name: 'execute_code', arguments: { code: 'while (true) {}' } }],
      },
      { text: 'It ran too long.' },
    );
    const response = await fetch(`${bin.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'loop' }] }),
    });
    expect(response.status).toBe(200);
    const toolMessage = fake.requests[1]!.body.messages.at(-1);
    expect(JSON.stringify(toolMessage)).toContain('within 1500 ms');
  });
});
