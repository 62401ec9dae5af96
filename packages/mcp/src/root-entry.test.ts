import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { nodeBuiltinImports } from '@toolwire/testing/module-graph';
import { describe, expect, it } from 'vitest';
import * as root from './index.js';
import * as node from './node.js';

const src = dirname(fileURLToPath(import.meta.url));

describe('@toolwire/mcp entries', () => {
  it('keeps node: modules out of the root entry and what it imports from other Toolwire packages', () => {
    expect(nodeBuiltinImports(join(src, 'index.ts'))).toEqual([]);
  });

  it('has processes, files and the loopback listener behind ./node', () => {
    const found = nodeBuiltinImports(join(src, 'node.ts')).join('\n');
    for (const builtin of ['node:child_process', 'node:fs', 'node:http'])
      expect(found).toContain(builtin);
  });

  it('offers everything of the root entry from ./node too, with the Node createRegistry', () => {
    for (const name of Object.keys(root)) expect(node).toHaveProperty(name);
    expect(node.createRegistry).not.toBe(root.createRegistry);
    expect(node).toHaveProperty('loadConfig');
    expect(root).not.toHaveProperty('loadConfig');
  });
});

describe('createRegistry (root entry)', () => {
  it('keeps a stdio server down with a reason that names @toolwire/mcp/node when no transport is injected', async () => {
    const registry = root.createRegistry({
      config: { mcpServers: { fx: fixtureStdioConfig() } },
      nativeTools: [],
      backoff: { initialMs: 60_000 },
      logger: { warn: () => {} },
    });
    try {
      await registry.start();
      const [server] = registry.servers();
      expect(server).toMatchObject({ name: 'fx', status: 'down' });
      expect(server!.reason).toContain('@toolwire/mcp/node');
    } finally {
      await registry.close();
    }
  });

  it('starts the same stdio server through an injected transport factory', async () => {
    const registry = root.createRegistry({
      config: { mcpServers: { fx: fixtureStdioConfig() } },
      nativeTools: [],
      stdioTransport: (options) => new node.ProcessTransport(options),
      logger: { warn: () => {} },
    });
    try {
      await registry.start();
      expect(registry.servers()[0]).toMatchObject({ name: 'fx', status: 'ok' });
      expect(registry.servers()[0]!.pid).toBeGreaterThan(0);
    } finally {
      await registry.close();
    }
  });
});
