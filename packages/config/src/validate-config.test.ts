import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadConfig } from './load-config.js';
import {
  authTokensOf,
  configJsonSchema,
  parseConfigText,
  pointerToPath,
  transportOf,
  validateConfig,
} from './validate-config.js';

const dir = mkdtempSync(join(tmpdir(), 'toolwire-config-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('loads a plain Claude Desktop mcpServers file unchanged', () => {
    const plain = {
      mcpServers: {
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
        },
        remote: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
      },
    };
    expect(loadConfig(file('mcp.json', JSON.stringify(plain)))).toEqual(plain);
  });

  it('loads the full SPEC example, comments included', () => {
    const text = `{
      "mcpServers": {
        "fs":     { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "./data"], "env": {} },
        "remote": { "url": "http://127.0.0.1:9000/mcp", "headers": { "Authorization": "Bearer \${TOKEN}" } },
        "old":    { "url": "http://127.0.0.1:9001/sse", "transport": "sse" },
        "off":    { "command": "x", "enabled": false }
      },
      "nativeTools": ["hash", "time", "calculate"],        // built-in tools
      "namespace": { "strategy": "prefix", "separator": "__", "maxLength": 64, "aliases": { "fs__read_text_file": "read_file" } },
      "gateway":   { "mode": "tools" },
      "codeMode":  { "enabled": false, "excludedTools": [] },
      "policy": { "allow": ["*"], "block": [], "rateLimit": { "perMinute": 600, "perTool": { "fs__write_file": 10 } }, "timeoutMs": 30000 },
      "auth":   { "tokens": [ { "token": "\${GW_TOKEN}", "client": "ci", "allow": ["*"] } ] },
      "cache":  { "ttlSeconds": 60, "maxEntries": 1000, "tools": ["memory__read_graph"] },
      "redis":  "redis://127.0.0.1:6379",
      /* the model behind toolwire chat */
      "chat":   { "provider": "openai", "baseUrl": "https://api.openai.com/v1", "apiKey": "\${OPENAI_API_KEY}", "model": "gpt-5-mini" }
    }`;
    const warnings: string[] = [];
    const config = loadConfig(file('toolwire.config.json', text), {
      env: { TOKEN: 't0k', GW_TOKEN: 'gw' },
      onWarning: (w) => warnings.push(w),
    });
    expect(config.mcpServers?.remote?.headers?.Authorization).toBe('Bearer t0k');
    expect(config.auth?.tokens?.[0]?.token).toBe('gw');
    expect(config.chat?.apiKey).toBe('');
    expect(warnings).toEqual([
      'config chat.apiKey: environment variable OPENAI_API_KEY is not set; using ""',
    ]);
    expect(transportOf(config.mcpServers!.old!)).toBe('sse');
    expect(transportOf(config.mcpServers!.remote!)).toBe('http');
    expect(transportOf(config.mcpServers!.fs!)).toBe('stdio');
  });

  it('expands ${VAR} and ${VAR:-default} in every string, and $${VAR} stays literal', () => {
    const config = loadConfig(
      {
        mcpServers: {
          a: {
            command: '${CMD}',
            args: ['${MISSING:-fallback}', 'x${CMD}y', '$${CMD}'],
            env: { K: '${EMPTY:-d}' },
          },
        },
      },
      { env: { CMD: 'node', EMPTY: '' } },
    );
    expect(config.mcpServers?.a).toEqual({
      command: 'node',
      args: ['fallback', 'xnodey', '${CMD}'],
      env: { K: 'd' },
    });
  });

  it('throws for an unset variable without a default when strictEnv is set, naming the path', () => {
    const error = configError(() =>
      loadConfig(
        { mcpServers: { a: { command: 'x', args: ['ok', '${NOPE}'] } } },
        { env: {}, strictEnv: true },
      ),
    );
    expect(error.path).toBe('mcpServers.a.args[1]');
    expect(error.message).toContain('NOPE');
  });

  it('accepts every chat provider and names chat.provider for an unknown one', () => {
    for (const provider of ['openai', 'openai-responses', 'anthropic', 'ollama', 'xai', 'google'])
      expect(loadConfig({ chat: { provider } } as never).chat?.provider).toBe(provider);
    const error = configError(() => loadConfig({ chat: { provider: 'gemini' } } as never));
    expect(error.path).toBe('chat.provider');
  });

  it('rejects a wrong type with the dotted path of the value', () => {
    const error = configError(() =>
      loadConfig({ mcpServers: { fs: { command: 'npx', args: ['-y', 42] } } }),
    );
    expect(error.path).toBe('mcpServers.fs.args[1]');
    expect(error.message).toBe('Invalid config at mcpServers.fs.args[1]: must be string');
  });

  it('rejects an unknown key and suggests the nearest known one', () => {
    const error = configError(() =>
      loadConfig({ mcpServers: { fs: { comand: 'npx', command: 'npx' } } }),
    );
    expect(error.path).toBe('mcpServers.fs.comand');
    expect(error.message).toContain('did you mean "command"');
    const top = configError(() => loadConfig({ mcpServer: {} }));
    expect(top.path).toBe('mcpServer');
    expect(top.message).toContain('"mcpServers"');
  });

  it('names the path for nested policy values and enums', () => {
    expect(
      configError(() => loadConfig({ policy: { rateLimit: { perTool: { x: 'ten' } } } })).path,
    ).toBe('policy.rateLimit.perTool.x');
    expect(configError(() => loadConfig({ gateway: { mode: 'proxy' } })).path).toBe('gateway.mode');
    expect(configError(() => loadConfig({ nativeTools: ['hash', 'weather'] })).path).toBe(
      'nativeTools[1]',
    );
  });

  it('says a server needs command or url', () => {
    const error = configError(() => loadConfig({ mcpServers: { x: { args: [] } } }));
    expect(error.path).toBe('mcpServers.x');
    expect(error.message).toContain('"command"');
  });

  it('reports unreadable and malformed files', () => {
    expect(configError(() => loadConfig(join(dir, 'missing.json'))).message).toContain('ENOENT');
    expect(configError(() => loadConfig(file('bad.json', '{"mcpServers": '))).message).toContain(
      'not valid JSON',
    );
  });

  it('accepts JSONC trailing commas, as the README examples use them', () => {
    const config = loadConfig(
      file('trailing.json', '{\n  "chat": { "model": "m", },\n  // c\n  "redis": "redis://x",\n}'),
    );
    expect(config).toEqual({ chat: { model: 'm' }, redis: 'redis://x' });
  });

  it('names the line and column of a syntax error', () => {
    const error = configError(() =>
      loadConfig(file('col.json', '{\n  "redis": "x" "chat": {}\n}')),
    );
    expect(error.message).toContain('CommaExpected at line 2, column 16');
  });

  it('accepts an auth token without a client name and names the client token-<n>', () => {
    const config = validateConfig(parseConfigText('{"auth":{"tokens":[{"token":"secret-1"}]}}'));
    expect(authTokensOf(config)).toEqual([{ token: 'secret-1', client: 'token-1' }]);
  });

  it('refuses the same token twice, naming the second', () => {
    const error = configError(() =>
      validateConfig({ auth: { tokens: [{ token: 'a' }, { token: 'b' }, { token: 'a' }] } }),
    );
    expect(error.path).toBe('auth.tokens[2].token');
  });

  it('refuses an empty glob pattern', () => {
    expect(configError(() => validateConfig({ policy: { allow: ['x', ''] } })).path).toBe(
      'policy.allow[1]',
    );
  });

  it('resolves a relative cwd against the config file directory', () => {
    const config = loadConfig(
      file('cwd.json', JSON.stringify({ mcpServers: { a: { command: 'x', cwd: 'sub' } } })),
    );
    expect(config.mcpServers?.a?.cwd).toBe(join(dir, 'sub'));
  });

  it('loads policy.paths, resolving relative roots against the config file directory', () => {
    const config = loadConfig(
      file(
        'paths.json',
        JSON.stringify({
          policy: {
            allow: ['fs__*', 'resources:fs'],
            paths: [{ tools: ['fs__*'], roots: ['./data/public', '/srv/shared'] }],
          },
        }),
      ),
    );
    expect(config.policy?.paths?.[0]?.roots).toEqual([join(dir, 'data', 'public'), '/srv/shared']);
    expect(
      configError(() => loadConfig({ policy: { paths: [{ tools: ['fs__*'], roots: 'data' }] } }))
        .path,
    ).toBe('policy.paths[0].roots');
    expect(
      configError(() => loadConfig({ policy: { paths: [{ tools: ['fs__*'], root: ['data'] }] } }))
        .path,
    ).toMatch(/^policy\.paths\[0\]/);
  });
});

describe('configJsonSchema', () => {
  it('equals the committed config.schema.json (run `pnpm --filter @toolwire/config generate` after changing the schema)', () => {
    const shipped = JSON.parse(
      readFileSync(new URL('../config.schema.json', import.meta.url), 'utf8'),
    );
    expect(configJsonSchema).toEqual(shipped);
    expect(Object.keys(configJsonSchema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'mcpServers',
        'nativeTools',
        'namespace',
        'gateway',
        'codeMode',
        'policy',
        'auth',
        'cache',
        'redis',
        'chat',
      ]),
    );
  });
});

describe('pointerToPath', () => {
  it('turns JSON pointers into dotted paths', () => {
    expect(pointerToPath('/mcpServers/fs/args/1')).toBe('mcpServers.fs.args[1]');
    expect(pointerToPath('/mcpServers/my server/env/a~1b')).toBe(
      'mcpServers["my server"].env["a/b"]',
    );
    expect(pointerToPath('')).toBe('');
  });
});
