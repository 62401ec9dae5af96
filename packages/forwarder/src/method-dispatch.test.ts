/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import { validateConfig } from '@toolwire/config';
import { afterEach, describe, expect, it } from 'vitest';
import { CallPipeline } from './call/call-pipeline.js';
import { ProtocolBridge } from './bridge/protocol-bridge.js';
import { Catalog } from './catalog.js';
import { GatewayMode } from './gateway-mode.js';
import { createMethodDispatch, type Dispatch } from './method-dispatch.js';
import { Sessions } from './sessions.js';
import type { SourceCallOptions, SourceTool, ToolSource } from './tool-source.js';

const tools: SourceTool[] = [
  {
    name: 'a__echo',
    originalName: 'echo',
    source: 'a',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  // The same upstream name on another upstream: a route finds its own.
  {
    name: 'b__echo',
    originalName: 'echo',
    source: 'b',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
];

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

function dispatchOver(config: object = {}): { dispatch: Dispatch; calls: string[] } {
  const calls: string[] = [];
  const source: ToolSource = {
    listTools: () => tools,
    servers: () => [
      { name: 'a', status: 'ok', tools: 1 },
      { name: 'b', status: 'ok', tools: 1 },
    ],
    resolve: () => undefined,
    onToolsChanged: () => () => {},
    async callTool(name: string, args: unknown, _options?: SourceCallOptions) {
      calls.push(name);
      return { content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] };
    },
  };
  const validated = validateConfig(config);
  const pipeline = new CallPipeline({
    source,
    config: validated,
    audit: false,
    probeIntervalMs: 0,
  });
  const sessions = new Sessions();
  closers.push(
    () => pipeline.close(),
    () => sessions.close(),
  );
  const dispatch = createMethodDispatch({
    pipeline,
    gateway: new GatewayMode(pipeline, source),
    catalog: new Catalog(source, pipeline, 30_000),
    sessions,
    bridge: new ProtocolBridge({ sessions, pipeline }),
    serverInfo: { name: 'test', version: '1' },
    cacheScope: 'public',
  });
  return { dispatch, calls };
}

const request = (method: string, params?: Record<string, unknown>, id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

describe('createMethodDispatch', () => {
  it('answers initialize with a revision it speaks and its capabilities', async () => {
    const { dispatch } = dispatchOver();
    const answer = (await dispatch(
      request('initialize', { protocolVersion: '2025-06-18' }),
    )) as any;
    expect(answer.result.protocolVersion).toBe('2025-06-18');
    expect(answer.result.capabilities.tools).toEqual({ listChanged: true });
    const unknown = (await dispatch(
      request('initialize', { protocolVersion: '1999-01-01' }),
    )) as any;
    expect(unknown.result.protocolVersion).toBe('2025-11-25');
  });

  it('calls a tool by its exposed name on the aggregated route', async () => {
    const { dispatch, calls } = dispatchOver();
    const answer = (await dispatch(
      request('tools/call', { name: 'b__echo', arguments: { text: 'x' } }),
    )) as any;
    expect(answer.result.content[0].text).toBe('b__echo {"text":"x"}');
    expect(calls).toEqual(['b__echo']);
  });

  it("calls a tool by the upstream's own name on that upstream's route", async () => {
    const { dispatch, calls } = dispatchOver();
    await dispatch(request('tools/call', { name: 'echo', arguments: {} }), { server: 'b' });
    expect(calls).toEqual(['b__echo']);
    const missing = (await dispatch(request('tools/call', { name: 'a__echo' }), {
      server: 'b',
    })) as any;
    expect(missing.error).toMatchObject({ code: -32602, message: 'Unknown tool: a__echo' });
  });

  it('lists a route with upstream names and the aggregated route with exposed names', async () => {
    const { dispatch } = dispatchOver();
    const route = (await dispatch(request('tools/list'), { server: 'a' })) as any;
    expect(route.result.tools.map((t: any) => t.name)).toEqual(['echo']);
    const all = (await dispatch(request('tools/list'))) as any;
    expect(all.result.tools.map((t: any) => t.name)).toEqual(['a__echo', 'b__echo']);
  });

  it('refuses batches, answers unknown methods, and answers nothing to notifications', async () => {
    const { dispatch } = dispatchOver();
    expect(await dispatch([request('ping')])).toMatchObject({ error: { code: -32600 } });
    expect(await dispatch(request('nope/nope'))).toMatchObject({ error: { code: -32601 } });
    expect(await dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(await dispatch({ jsonrpc: '2.0', id: null, method: 'ping' })).toMatchObject({
      error: { code: -32600 },
    });
  });

  it('marks 2026-07-28 answers complete, with list cache hints', async () => {
    const { dispatch } = dispatchOver();
    const answer = (await dispatch(request('tools/list'), { modern: true })) as any;
    expect(answer.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'public' });
  });

  it('answers a refused call as one of a tool that does not exist, and never calls the upstream', async () => {
    const { dispatch, calls } = dispatchOver({ policy: { block: ['b__*'] } });
    const answer = (await dispatch(request('tools/call', { name: 'b__echo' }))) as any;
    expect(answer.error).toEqual({
      code: -32602,
      message: 'Unknown tool: b__echo',
      data: { tool: 'b__echo' },
    });
    expect(calls).toEqual([]);
  });
});
