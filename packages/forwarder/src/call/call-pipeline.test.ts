import { TimeoutError, defineTool } from '@toolwire/schema';
import { validateConfig } from '@toolwire/config';
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuditEntry } from '../audit-log.js';
import { UpstreamError } from '../http-upstream.js';
import { JsonRpcFault } from '../json-rpc.js';
import type { CallToolResult, SourceCallOptions, SourceTool, ToolSource } from '../tool-source.js';
import { CallPipeline, type CallPipelineOptions } from './call-pipeline.js';

/** A source of two upstream tools, `fx__read` (read-only) and `fx__write`, that records its calls. */
function stubSource() {
  const calls: Array<{ name: string; args: unknown; options: SourceCallOptions }> = [];
  const runs = new Map<string, number>();
  let writeFails: (() => Error) | undefined;
  const tools: SourceTool[] = [
    {
      name: 'fx__read',
      originalName: 'read',
      source: 'fx',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'fx__write',
      originalName: 'write',
      source: 'fx',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const source: ToolSource & { calls: typeof calls; failWritesWith(error: () => Error): void } = {
    calls,
    failWritesWith: (error) => (writeFails = error),
    listTools: () => tools,
    servers: () => [{ name: 'fx', status: 'ok', tools: tools.length }],
    resolve: () => undefined,
    onToolsChanged: () => () => {},
    async callTool(name, args, options = {}): Promise<CallToolResult> {
      calls.push({ name, args, options });
      if (name === 'fx__write' && writeFails) throw writeFails();
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return { content: [{ type: 'text', text: `${name} run ${runs.get(name)}` }] };
    },
  };
  return source;
}

const pipelines: CallPipeline[] = [];
afterEach(async () => {
  while (pipelines.length > 0) await pipelines.pop()!.close();
});

function pipeline(
  source: ToolSource,
  config: object = {},
  options: Partial<CallPipelineOptions> = {},
): { pipeline: CallPipeline; audit: AuditEntry[] } {
  const audit: AuditEntry[] = [];
  const made = new CallPipeline({
    source,
    config: validateConfig(config),
    audit: (entry) => audit.push(entry),
    probeIntervalMs: 0,
    retry: false,
    ...options,
  });
  pipelines.push(made);
  return { pipeline: made, audit };
}

const text = (result: CallToolResult) => String(result.content[0]?.text);

describe('CallPipeline', () => {
  it('drops the cached reads of an upstream after a write that failed to connect', async () => {
    const source = stubSource();
    const { pipeline: p } = pipeline(source, { cache: { readOnlyTools: true } });
    expect(text(await p.call('fx__read', { n: 1 }))).toBe('fx__read run 1');
    expect(text(await p.call('fx__read', { n: 1 }))).toBe('fx__read run 1');
    source.failWritesWith(() => new UpstreamError('fx', 'connection', 'connection reset'));
    await expect(p.call('fx__write', { path: 'x' })).rejects.toBeInstanceOf(JsonRpcFault);
    // The write may have landed before the connection went: the read asks the upstream again.
    expect(text(await p.call('fx__read', { n: 1 }))).toBe('fx__read run 2');
  });

  it('drops the cached reads of an upstream after a write that timed out', async () => {
    const source = stubSource();
    const { pipeline: p } = pipeline(source, { cache: { readOnlyTools: true } });
    await p.call('fx__read', { n: 1 });
    source.failWritesWith(() => new TimeoutError({ timeoutMs: 10 }));
    await expect(p.call('fx__write', { path: 'x' })).rejects.toMatchObject({
      rpcCode: -32051,
      code: 'upstream_timeout',
    });
    expect(text(await p.call('fx__read', { n: 1 }))).toBe('fx__read run 2');
  });

  it('keeps cached reads after a read of other arguments', async () => {
    const source = stubSource();
    const { pipeline: p } = pipeline(source, { cache: { readOnlyTools: true } });
    await p.call('fx__read', { n: 1 });
    await p.call('fx__read', { n: 2 });
    expect(text(await p.call('fx__read', { n: 1 }))).toBe('fx__read run 1');
    expect(source.calls).toHaveLength(2);
  });

  it('validates arguments once: the source is told they were, and bad ones never reach it', async () => {
    const source = stubSource();
    const { pipeline: p, audit } = pipeline(source);
    await p.call('fx__read', { n: 1 });
    expect(source.calls[0]!.options.argumentsValidated).toBe(true);
    const refused = await p.call('fx__read', { n: 'one' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Invalid arguments for tool "fx__read": /);
    expect(source.calls).toHaveLength(1);
    expect(audit.at(-1)).toMatchObject({ outcome: 'refused', error: 'invalid arguments' });
  });

  it('tells the source nothing was validated when validation is off', async () => {
    const source = stubSource();
    const { pipeline: p } = pipeline(source, {}, { validateArguments: false });
    await p.call('fx__read', { n: 'one' });
    expect(source.calls[0]!.options.argumentsValidated).toBe(false);
  });

  it('records one audit line per call with the caller, outcome and redacted arguments', async () => {
    const source = stubSource();
    const { pipeline: p, audit } = pipeline(source, {
      auth: { tokens: [{ token: 't', client: 'alice', allow: ['fx__read'] }] },
    });
    const token = { token: 't', client: 'alice', allow: ['fx__read'] };
    await p.call('fx__read', { n: 1 }, { token, address: '127.0.0.9' });
    // The caller is told what it would be told of a tool that does not exist; the audit line
    // names the rule.
    await expect(p.call('fx__write', {}, { token })).rejects.toMatchObject({
      rpcCode: -32602,
      message: 'Unknown tool: fx__write',
    });
    expect(audit).toMatchObject([
      { client: 'alice', tool: 'fx__read', outcome: 'ok', address: '127.0.0.9' },
      {
        client: 'alice',
        tool: 'fx__write',
        outcome: 'refused',
        error: expect.stringContaining('auth.tokens.allow'),
      },
    ]);
    expect(audit[0]!.arguments).toEqual({ n: '[number]' });
  });

  it('resolves a tool by its upstream name on a route, and by its namespaced name', () => {
    const { pipeline: p } = pipeline(stubSource());
    expect(p.index.onRoute('fx', 'write')?.tool.name).toBe('fx__write');
    expect(p.index.onRoute('other', 'write')).toBeUndefined();
    expect(p.byCanonicalName('fx__read')?.tool.name).toBe('fx__read');
  });

  it('runs its own native tools in process, before a source tool of the same name', async () => {
    const source = stubSource();
    const native = defineTool({
      name: 'fx__read',
      description: 'shadows the upstream tool',
      inputSchema: { type: 'object', properties: {} },
      execute: () => 'native answer',
    });
    const { pipeline: p } = pipeline(source, {}, { nativeTools: [native] });
    expect(text(await p.call('fx__read', {}))).toBe('native answer');
    expect(source.calls).toHaveLength(0);
  });

  it('answers an unknown tool with invalid params', async () => {
    const { pipeline: p } = pipeline(stubSource());
    await expect(p.call('nope', {})).rejects.toMatchObject({ rpcCode: -32602 });
  });
});

describe('CallPipeline path rules (policy.paths)', () => {
  it('hands the upstream the real path it checked, not the name it was given', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'pipeline-paths-')));
    mkdirSync(join(base, 'root', 'real'), { recursive: true });
    symlinkSync(join(base, 'root', 'real'), join(base, 'root', 'link'));
    const source = stubSource();
    const { pipeline: p } = pipeline(source, {
      policy: {
        paths: [{ tools: ['fx__write'], arguments: ['path'], roots: [join(base, 'root')] }],
      },
    });
    await p.call('fx__write', { path: join(base, 'root', 'link', 'file.txt') });
    expect(source.calls[0]!.args).toEqual({ path: join(base, 'root', 'real', 'file.txt') });
  });

  it('withholds the result when a handed path changed while the call ran', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'pipeline-recheck-')));
    mkdirSync(join(base, 'root', 'dir'), { recursive: true });
    mkdirSync(join(base, 'private'));
    writeFileSync(join(base, 'private', 'file.txt'), 'SECRET');
    const source = stubSource();
    const callTool = source.callTool.bind(source);
    // While the upstream works, the checked directory is swapped for a symlink out of the root.
    source.callTool = async (name, args, options) => {
      renameSync(join(base, 'root', 'dir'), join(base, 'root', 'dir.old'));
      symlinkSync(join(base, 'private'), join(base, 'root', 'dir'));
      return callTool(name, args, options);
    };
    const { pipeline: p, audit } = pipeline(source, {
      policy: {
        paths: [{ tools: ['fx__write'], arguments: ['path'], roots: [join(base, 'root')] }],
      },
    });
    await expect(
      p.call('fx__write', { path: join(base, 'root', 'dir', 'file.txt') }),
    ).rejects.toMatchObject({
      rpcCode: -32003,
      message: expect.stringMatching(/changed while the call ran/),
    });
    expect(audit.at(-1)).toMatchObject({ tool: 'fx__write', outcome: 'refused' });
  });
});

describe('CallPipeline call slots (policy.limits.calls)', () => {
  it("runs a client's calls up to its share, queues the next, refuses past its queue, and not another client's", async () => {
    const source = stubSource();
    const gates: Array<() => void> = [];
    const callTool = source.callTool.bind(source);
    source.callTool = async (name, args, options) => {
      await new Promise<void>((resolve) => gates.push(resolve));
      return callTool(name, args, options);
    };
    const { pipeline: p, audit } = pipeline(source, {
      policy: { limits: { calls: { concurrent: 1, queued: 1 } } },
      auth: {
        tokens: [
          { token: 'a', client: 'a' },
          { token: 'b', client: 'b', limits: { calls: { concurrent: 2 } } },
        ],
      },
    });
    const a = { token: 'a', client: 'a' };
    const b = { token: 'b', client: 'b', limits: { calls: { concurrent: 2 } } };
    const first = p.call('fx__write', {}, { token: a });
    const second = p.call('fx__write', {}, { token: a });
    await vi.waitFor(() => expect(p.callUsage()).toEqual({ active: { a: 1 }, queued: { a: 1 } }));
    await expect(p.call('fx__write', {}, { token: a })).rejects.toMatchObject({
      rpcCode: -32029,
      data: { retryAfterMs: expect.any(Number), policy: 'policy.limits.calls' },
    });
    // Another client's two calls run beside them.
    const others = [p.call('fx__write', {}, { token: b }), p.call('fx__write', {}, { token: b })];
    await vi.waitFor(() => expect(p.callUsage().active).toEqual({ a: 1, b: 2 }));
    // Four calls reach the upstream in all: a's two, one after the other, and b's two.
    for (let released = 0; released < 4; released++) {
      await vi.waitFor(() => expect(gates.length).toBeGreaterThan(0));
      gates.shift()!();
    }
    await Promise.all([first, second, ...others]);
    expect(audit.filter((line) => line.outcome === 'refused')).toHaveLength(1);
  });
});
