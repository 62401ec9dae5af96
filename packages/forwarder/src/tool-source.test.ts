import { describe, expect, it } from 'vitest';
import { upstreamHealth } from './tool-source.js';
import { createForwarder } from './forwarder.js';

describe('upstreamHealth', () => {
  it('counts idle as healthy but not connected, and unknown statuses as degraded', () => {
    expect(upstreamHealth('ok')).toEqual({ state: 'healthy', connected: true });
    expect(upstreamHealth('idle')).toEqual({ state: 'healthy', connected: false });
    expect(upstreamHealth('stale')).toEqual({ state: 'degraded', connected: false });
    expect(upstreamHealth('connecting')).toEqual({ state: 'degraded', connected: false });
    expect(upstreamHealth('down')).toEqual({ state: 'down', connected: false });
    expect(upstreamHealth('disabled')).toEqual({ state: 'disabled', connected: false });
    expect(upstreamHealth('paused-by-operator')).toEqual({ state: 'degraded', connected: false });
  });
});

describe('Forwarder.metrics', () => {
  it('reports an idle upstream as up but not connected', async () => {
    const forwarder = createForwarder({
      audit: false,
      source: {
        listTools: () => [],
        servers: () => [
          { name: 'lazy', status: 'idle', tools: 3 },
          { name: 'live', status: 'ok', tools: 1 },
          { name: 'lost', status: 'stale', tools: 1 },
        ],
        resolve: () => undefined,
        onToolsChanged: () => () => undefined,
        callTool: () => Promise.reject(new Error('no tools')),
      },
    });
    try {
      const text = await forwarder.metrics();
      expect(text).toMatch(/toolwire_forwarder_upstream_up\{upstream="lazy"\} 1/);
      expect(text).toMatch(/toolwire_forwarder_upstream_connected\{upstream="lazy"\} 0/);
      expect(text).toMatch(/toolwire_forwarder_upstream_connected\{upstream="live"\} 1/);
      expect(text).toMatch(/toolwire_forwarder_upstream_up\{upstream="lost"\} 0.5/);
    } finally {
      await forwarder.close();
    }
  });
});
