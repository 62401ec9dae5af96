import { pick, seededRandom, testSeed } from '@toolwire/testing/random';
import { parseJSONRPCMessage, ReadBuffer } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { JsonRpcLines, MAX_LINE_BYTES, toJsonRpcMessage } from './json-rpc-lines.js';

/** What the SDK's schema makes of a value: the message, or that it throws. */
function sdk(value: unknown): { ok: true; message: unknown } | { ok: false } {
  try {
    return { ok: true, message: parseJSONRPCMessage(value) };
  } catch {
    return { ok: false };
  }
}

function ours(value: unknown): { ok: true; message: unknown } | { ok: false } {
  try {
    return { ok: true, message: toJsonRpcMessage(value) };
  } catch {
    return { ok: false };
  }
}

/** Values for any member: right types, wrong types, edge numbers, `_meta` of several shapes. */
function anyValue(next: () => number, depth = 0): unknown {
  const leaves: unknown[] = [
    0,
    1,
    -1,
    1.5,
    2 ** 53,
    Number.MAX_SAFE_INTEGER,
    '',
    'x',
    'tools/call',
    true,
    false,
    null,
  ];
  if (depth > 2 || next() < 0.5) return pick(next, leaves);
  if (next() < 0.3) return [anyValue(next, depth + 1)];
  return anyObject(next, depth + 1);
}

function anyObject(next: () => number, depth = 0): Record<string, unknown> {
  const keys = ['a', 'content', 'name', 'arguments', '_meta', 'progressToken', 'text', 'type'];
  const object: Record<string, unknown> = {};
  const count = Math.floor(next() * 4);
  for (let i = 0; i < count; i++) object[pick(next, keys)] = anyValue(next, depth + 1);
  return object;
}

/** A message of one of the four kinds, then (often) broken in one way or another. */
function anyMessage(next: () => number): unknown {
  const id = pick(next, [1, 7, 'req-1', '', 0, -3, 1.5, null, true, 2 ** 53, {}]);
  const body = (): unknown =>
    next() < 0.7 ? anyObject(next) : pick(next, [[], 'x', 1, null, { _meta: anyValue(next) }]);
  const base: Record<string, unknown> = { jsonrpc: pick(next, ['2.0', '2.0', '2.0', '1.0', 2]) };
  switch (Math.floor(next() * 4)) {
    case 0:
      Object.assign(base, { id, method: pick(next, ['tools/call', 'ping', 1, '']) });
      if (next() < 0.7) base.params = body();
      break;
    case 1:
      Object.assign(base, { method: pick(next, ['notifications/progress', '', null]) });
      if (next() < 0.7) base.params = body();
      break;
    case 2:
      Object.assign(base, { id, result: body() });
      break;
    default: {
      const error: Record<string, unknown> = {
        code: pick(next, [-32601, -32602, 0, 1.5, '1', 2 ** 53]),
        message: pick(next, ['no such tool', '', 3]),
      };
      if (next() < 0.3) error.data = anyValue(next);
      if (next() < 0.1) error.extra = 1;
      if (next() < 0.1) delete error.message;
      Object.assign(base, { error });
      if (next() < 0.8) base.id = id;
    }
  }
  // One member too many, or one gone.
  if (next() < 0.15) base[pick(next, ['id', 'method', 'result', 'error', 'params', 'x'])] = 1;
  if (next() < 0.1) delete base[pick(next, ['jsonrpc', 'id', 'method', 'result', 'error'])];
  // What arrives is what JSON.parse made of the line.
  return JSON.parse(JSON.stringify(base));
}

describe('toJsonRpcMessage', () => {
  it('accepts and refuses exactly what the SDK schema does, and returns the same message (20,000 generated)', () => {
    const seed = testSeed(20261124);
    const next = seededRandom(seed);
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const value = anyMessage(next);
      const expected = sdk(value);
      const got = ours(value);
      if (
        got.ok !== expected.ok ||
        (got.ok && expected.ok && !isEqual(got.message, expected.message))
      )
        expect({ seed, i, value, got }).toEqual({ seed, i, value, got: expected });
      if (got.ok) accepted++;
    }
    // The generator reaches both sides of the line.
    expect(accepted).toBeGreaterThan(2_000);
    expect(accepted).toBeLessThan(18_000);
  });

  it('leaves every message with _meta to the SDK schema, which checks its members', () => {
    expect(() =>
      toJsonRpcMessage({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { _meta: { progressToken: {} } },
      }),
    ).toThrow();
    expect(
      toJsonRpcMessage({ jsonrpc: '2.0', id: 1, result: { _meta: { a: 1 }, content: [] } }),
    ).toEqual({ jsonrpc: '2.0', id: 1, result: { _meta: { a: 1 }, content: [] } });
  });
});

function isEqual(a: unknown, b: unknown): boolean {
  try {
    expect(a).toStrictEqual(b);
    return true;
  } catch {
    return false;
  }
}

describe('JsonRpcLines', () => {
  const messages = [
    { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo wörld ✓ 𝄞' }] } },
    { jsonrpc: '2.0', method: 'notifications/tools/list_changed' },
    { jsonrpc: '2.0', id: 'a', error: { code: -32602, message: 'bad arguments: ✗' } },
  ];
  const bytes = Buffer.from(
    `${JSON.stringify(messages[0])}\r\nnot json: a server's log line\n\n${JSON.stringify(messages[1])}\n${JSON.stringify(messages[2])}\n`,
  );

  function readAll(chunks: Buffer[]): unknown[] {
    const lines = new JsonRpcLines();
    const out: unknown[] = [];
    for (const chunk of chunks) {
      lines.append(chunk);
      for (let m = lines.next(); m !== null; m = lines.next()) out.push(m);
    }
    return out;
  }

  it('reads the same messages whatever byte the stream is split at (multi-byte characters included)', () => {
    expect(readAll([bytes])).toEqual(messages);
    for (let at = 1; at < bytes.length; at++) {
      expect(readAll([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(messages);
    }
    expect(readAll([...bytes].map((b) => Buffer.from([b])))).toEqual(messages);
  });

  it('reads what the SDK ReadBuffer reads from the same bytes', () => {
    const sdkBuffer = new ReadBuffer();
    sdkBuffer.append(bytes);
    const fromSdk: unknown[] = [];
    for (let m = sdkBuffer.readMessage(); m !== null; m = sdkBuffer.readMessage()) fromSdk.push(m);
    expect(readAll([bytes])).toEqual(fromSdk);
  });

  it('throws for JSON that is not a JSON-RPC message, and goes on with the next line', () => {
    const lines = new JsonRpcLines();
    lines.append(Buffer.from(`{"jsonrpc":"2.0","id":1}\n${JSON.stringify(messages[1])}\n`));
    expect(() => lines.next()).toThrow();
    expect(lines.next()).toEqual(messages[1]);
  });

  it('refuses a line longer than the limit, and reads the next one', () => {
    const lines = new JsonRpcLines();
    lines.append(Buffer.alloc(MAX_LINE_BYTES, 0x61));
    expect(() => lines.append(Buffer.from('a'))).toThrow(/without a newline/);
    lines.append(Buffer.from(`${JSON.stringify(messages[1])}\n`));
    expect(lines.next()).toEqual(messages[1]);
  });
});
