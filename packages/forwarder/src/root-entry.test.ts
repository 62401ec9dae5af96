import { describe, expect, it, vi } from 'vitest';
import type { ToolSource } from './tool-source.js';

// Which modules asked for `ioredis`: the mock records the import and hands over the real module.
const loaded: string[] = [];
vi.mock('ioredis', async (importOriginal) => {
  loaded.push('ioredis');
  return importOriginal();
});

const source: ToolSource = {
  listTools: () => [],
  servers: () => [],
  callTool: () => Promise.reject(new Error('no tools')),
  resolve: () => undefined,
  onToolsChanged: () => () => {},
};

describe('@toolwire/forwarder root entry', () => {
  it('loads no Redis client, also while a forwarder without redis runs', async () => {
    const { createForwarder } = await import('./index.js');
    const forwarder = createForwarder({ source, audit: false, probeIntervalMs: 0 });
    await forwarder.ready();
    await forwarder.close();
    expect(loaded).toEqual([]);
  });

  it('loads the Redis stores (@toolwire/forwarder/redis) when the config names a redis', async () => {
    const { createForwarder } = await import('./index.js');
    const forwarder = createForwarder({
      source,
      config: { redis: 'redis://127.0.0.1:1' },
      audit: false,
      probeIntervalMs: 0,
    });
    await expect(forwarder.ready(50)).rejects.toThrow();
    await forwarder.close();
    expect(loaded).toEqual(['ioredis']);
  });
});
