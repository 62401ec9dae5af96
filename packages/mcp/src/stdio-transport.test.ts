import { afterEach, describe, expect, it } from 'vitest';
import { defaultChildEnvironment } from './stdio-transport.js';

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
