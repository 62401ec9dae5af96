import { describe, expect, it } from 'vitest';
import { MemoryBreakerStateStore } from './breaker-store.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { createForwarder } from './forwarder.js';
import { UpstreamError } from './http-upstream.js';
import type { ToolSource } from './tool-source.js';

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures and reports the wait', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3, openMs: 1000 });
    breaker.failure(0);
    breaker.failure(0);
    expect(breaker.state).toBe('closed');
    breaker.success();
    breaker.failure(10);
    breaker.failure(10);
    expect(breaker.acquire(10)).toBe(0);
    breaker.failure(10);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire(510)).toBe(500);
  });

  it('lets exactly one probe through when half-open; its success closes the breaker', () => {
    const states: string[] = [];
    const breaker = new CircuitBreaker({ failureThreshold: 1, openMs: 100 });
    breaker.onStateChange = (s) => states.push(s);
    breaker.failure(0);
    expect(breaker.acquire(100)).toBe(0);
    expect(breaker.state).toBe('half-open');
    expect(breaker.acquire(101)).toBeGreaterThan(0);
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('re-opens when the half-open probe fails', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 100 });
    for (let i = 0; i < 5; i++) breaker.failure(0);
    expect(breaker.acquire(100)).toBe(0);
    breaker.failure(100);
    expect(breaker.state).toBe('open');
    expect(breaker.acquire(150)).toBe(50);
  });
});

describe('CircuitBreaker.apply', () => {
  it('takes on a shared state, reporting it as shared, and probes after openMs from its openedAt', () => {
    const origins: string[] = [];
    const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 100 });
    breaker.onStateChange = (state, origin) => origins.push(`${state}:${origin}`);
    breaker.apply({ state: 'open', openedAt: 1000 });
    expect(breaker.state).toBe('open');
    expect(breaker.acquire(1050)).toBe(50);
    expect(breaker.acquire(1100)).toBe(0);
    expect(breaker.state).toBe('half-open');
    breaker.apply({ state: 'closed', openedAt: 1000 });
    expect(breaker.acquire(1100)).toBe(0);
    expect(origins).toEqual(['open:shared', 'half-open:local', 'closed:shared']);
  });
});

describe('MemoryBreakerStateStore', () => {
  it('shares transitions between the forwarders of one process, and tells late joiners what is open', async () => {
    const store = new MemoryBreakerStateStore();
    const heard: string[] = [];
    const a = store.join((server, s) => heard.push(`a ${server} ${s.state}`));
    store.join((server, s) => heard.push(`b ${server} ${s.state}`));
    a.publish('fx', { state: 'open', openedAt: 1 });
    expect(heard).toEqual(['b fx open']);
    const late = store.join((server, s) => heard.push(`c ${server} ${s.state}`));
    await Promise.resolve();
    expect(heard).toEqual(['b fx open', 'c fx open']);
    late.leave();
    a.publish('fx', { state: 'closed', openedAt: 1 });
    expect(heard).toEqual(['b fx open', 'c fx open', 'b fx closed']);
  });
});

describe('createForwarder with a shared breakerState', () => {
  it("opens a forwarder's breaker when another's opens, ignoring upstreams it does not have", async () => {
    const breakerState = new MemoryBreakerStateStore();
    const source: ToolSource = {
      listTools: () => [
        { name: 'fx__ping', originalName: 'ping', source: 'fx', inputSchema: { type: 'object' } },
      ],
      servers: () => [{ name: 'fx', status: 'ok', tools: 1 }],
      resolve: () => ({ source: 'fx', originalName: 'ping' }),
      onToolsChanged: () => () => undefined,
      callTool: () =>
        Promise.reject(new UpstreamError('fx', 'connection', 'fx: connection refused')),
    };
    const options = { source, breakerState, audit: false as const, retry: false };
    const a = createForwarder({ ...options, breaker: { failureThreshold: 1 } });
    const b = createForwarder(options);
    try {
      await expect(a.callTool('fx__ping', {})).rejects.toThrow(/connection refused/);
      expect(a.pipeline.breaker('fx').state).toBe('open');
      expect(b.pipeline.breaker('fx').state).toBe('open');
      await expect(b.callTool('fx__ping', {})).rejects.toThrow(/circuit breaker open/);
      breakerState.join(() => undefined).publish('elsewhere', { state: 'open', openedAt: 1 });
      expect(await b.metrics()).not.toContain('upstream="elsewhere"');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
