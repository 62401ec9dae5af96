import { ToolwireError } from '@toolwire/schema';
import { isRecord } from './json-rpc.js';

/** The parts of a `toolwire.config.json` (SPEC.md) the forwarder reads. */
export interface ForwarderConfig {
  mcpServers?: Record<string, UpstreamServerConfig>;
  namespace?: { separator?: string };
  policy?: {
    allow?: string[];
    block?: string[];
    rateLimit?: { perMinute?: number; perTool?: Record<string, number> };
    timeoutMs?: number;
  };
  auth?: { tokens: AuthToken[] };
  cache?: { ttlSeconds?: number; maxEntries?: number; tools?: string[] };
  redis?: string;
  [key: string]: unknown;
}

export interface UpstreamServerConfig {
  url?: string;
  headers?: Record<string, string>;
  transport?: string;
  command?: string;
  enabled?: boolean;
  [key: string]: unknown;
}

export interface AuthToken {
  token: string;
  client: string;
  allow?: string[];
}

export class ForwarderConfigError extends ToolwireError {
  /** Dotted path of the offending key, e.g. `policy.rateLimit.perTool.fs__write_file`. */
  readonly path: string;
  constructor(options: { path: string; message: string }) {
    super('invalid_config', { message: `${options.path}: ${options.message}` });
    this.name = 'ForwarderConfigError';
    this.path = options.path;
  }
}

function fail(path: string, message: string): never {
  throw new ForwarderConfigError({ path, message });
}

function stringArray(value: unknown, path: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) fail(path, 'expected an array of glob strings');
  value.forEach((item, i) => {
    if (typeof item !== 'string' || item === '')
      fail(`${path}[${i}]`, 'expected a non-empty string');
  });
  return value as string[];
}

function positiveNumber(value: unknown, path: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(path, 'expected a positive number');
  }
  return value;
}

/**
 * Checks the keys the forwarder uses and returns them typed. A config already loaded by
 * `@toolwire/mcp`'s `loadConfig` passes unchanged; other keys are left for their owners.
 */
export function validateForwarderConfig(config: unknown): ForwarderConfig {
  if (config === undefined) return {};
  if (!isRecord(config)) fail('(root)', 'expected an object');
  const { policy, auth, cache, redis, mcpServers, namespace } = config;
  if (mcpServers !== undefined) {
    if (!isRecord(mcpServers)) fail('mcpServers', 'expected an object');
    for (const [name, server] of Object.entries(mcpServers)) {
      if (!isRecord(server)) fail(`mcpServers.${name}`, 'expected an object');
      if (server.url !== undefined && typeof server.url !== 'string')
        fail(`mcpServers.${name}.url`, 'expected a string');
    }
  }
  if (namespace !== undefined) {
    if (!isRecord(namespace)) fail('namespace', 'expected an object');
    if (namespace.separator !== undefined && typeof namespace.separator !== 'string') {
      fail('namespace.separator', 'expected a string');
    }
  }
  if (policy !== undefined) {
    if (!isRecord(policy)) fail('policy', 'expected an object');
    stringArray(policy.allow, 'policy.allow');
    stringArray(policy.block, 'policy.block');
    positiveNumber(policy.timeoutMs, 'policy.timeoutMs');
    if (policy.rateLimit !== undefined) {
      if (!isRecord(policy.rateLimit)) fail('policy.rateLimit', 'expected an object');
      positiveNumber(policy.rateLimit.perMinute, 'policy.rateLimit.perMinute');
      const perTool = policy.rateLimit.perTool;
      if (perTool !== undefined) {
        if (!isRecord(perTool))
          fail('policy.rateLimit.perTool', 'expected an object of glob → calls per minute');
        for (const [pattern, limit] of Object.entries(perTool)) {
          positiveNumber(limit, `policy.rateLimit.perTool.${pattern}`);
        }
      }
    }
  }
  if (auth !== undefined) {
    if (!isRecord(auth)) fail('auth', 'expected an object');
    if (!Array.isArray(auth.tokens)) fail('auth.tokens', 'expected an array');
    const seen = new Set<string>();
    auth.tokens.forEach((entry: unknown, i) => {
      const at = `auth.tokens[${i}]`;
      if (!isRecord(entry)) fail(at, 'expected an object');
      if (typeof entry.token !== 'string' || entry.token === '')
        fail(`${at}.token`, 'expected a non-empty string');
      if (typeof entry.client !== 'string' || entry.client === '')
        fail(`${at}.client`, 'expected a non-empty string');
      if (seen.has(entry.token)) fail(`${at}.token`, 'duplicate token');
      seen.add(entry.token);
      stringArray(entry.allow, `${at}.allow`);
    });
  }
  if (cache !== undefined) {
    if (!isRecord(cache)) fail('cache', 'expected an object');
    positiveNumber(cache.ttlSeconds, 'cache.ttlSeconds');
    positiveNumber(cache.maxEntries, 'cache.maxEntries');
    stringArray(cache.tools, 'cache.tools');
  }
  if (redis !== undefined && (typeof redis !== 'string' || !/^rediss?:\/\//.test(redis))) {
    fail('redis', 'expected a redis:// or rediss:// URL');
  }
  return config as ForwarderConfig;
}
