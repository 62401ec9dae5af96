import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultChildEnvironment, ProcessTransport } from './stdio-transport.js';

const saved = { ...process.env };

afterEach(() => {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
});

describe('defaultChildEnvironment', () => {
  it('passes the network settings npx-started servers need, and keeps secrets private', () => {
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/proxy-ca.pem';
    process.env.HTTPS_PROXY = 'http://127.0.0.1:3128';
    process.env.OPENAI_API_KEY = 'sk-secret';
    const env = defaultChildEnvironment();
    expect(env.NODE_EXTRA_CA_CERTS).toBe('/etc/ssl/certs/proxy-ca.pem');
    expect(env.HTTPS_PROXY).toBe('http://127.0.0.1:3128');
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.OPENAI_API_KEY).toBeUndefined();
  });
});

describe('ProcessTransport', () => {
  it('reports a server that writes 11 MB without a newline, and reads its next message', async () => {
    const transport = new ProcessTransport({
      command: process.execPath,
      args: [
        '-e',
        `process.stdout.write('a'.repeat(11 * 1024 * 1024));
         process.stdout.write('\\n' + JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }) + '\\n');
         setTimeout(() => {}, 5000);`,
      ],
    });
    const errors: string[] = [];
    const messages: unknown[] = [];
    transport.onerror = (error) => errors.push(error.message);
    transport.onmessage = (message) => messages.push(message);
    await transport.start();
    try {
      await vi.waitFor(() => expect(messages.length).toBeGreaterThan(0), { timeout: 5_000 });
      expect(errors.some((e) => /without a newline/.test(e))).toBe(true);
      expect(messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }]);
    } finally {
      await transport.close();
    }
  });
});
