import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  embeddedDefaultConfig,
  ensureDemoFolder,
  serverEntry,
  toolwireCacheDir,
} from './default-config.js';
import { loadConfig } from '@toolwire/config/node';

const { resolve } = createRequire(import.meta.url);
const scratch = (): string => mkdtempSync(join(tmpdir(), 'toolwire-default-'));

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('toolwireCacheDir', () => {
  it.runIf(process.platform === 'linux')('follows XDG_CACHE_HOME (Linux only)', () => {
    vi.stubEnv('XDG_CACHE_HOME', '/somewhere/cache');
    expect(toolwireCacheDir()).toBe('/somewhere/cache/toolwire');
  });
});

describe('serverEntry', () => {
  it('finds the bin script of a package through the given resolve', () => {
    const entry = serverEntry('@modelcontextprotocol/server-memory', resolve);
    expect(entry).toMatch(/server-memory[/\\]dist[/\\]index\.js$/);
    expect(existsSync(entry)).toBe(true);
  });

  it('accepts a resolve that answers with a file: URL (import.meta.resolve)', () => {
    const entry = serverEntry(
      '@modelcontextprotocol/server-filesystem',
      (specifier) => pathToFileURL(resolve(specifier)).href,
    );
    expect(entry).toBe(serverEntry('@modelcontextprotocol/server-filesystem', resolve));
  });

  it('names the package that declares no bin', () => {
    const dir = scratch();
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'no-bin' }));
    expect(() => serverEntry('no-bin', () => join(dir, 'package.json'))).toThrow(
      'no-bin declares no "bin" entry',
    );
  });
});

describe('ensureDemoFolder', () => {
  it('creates the sample files when the folder is missing', () => {
    const folder = join(scratch(), 'demo');
    expect(ensureDemoFolder(folder)).toBe(folder);
    expect(readFileSync(join(folder, 'notes', 'todo.txt'), 'utf8')).toContain('fs__read_text_file');
    expect(readFileSync(join(folder, 'README.md'), 'utf8')).toContain('# Toolwire demo folder');
    const cities = JSON.parse(readFileSync(join(folder, 'data', 'cities.json'), 'utf8')) as {
      name: string;
    }[];
    expect(cities.map((city) => city.name)).toEqual(['Lisbon', 'Osaka', 'Nairobi']);
  });

  it('leaves an existing folder as the user left it', () => {
    const folder = join(scratch(), 'demo');
    mkdirSync(folder);
    writeFileSync(join(folder, 'mine.txt'), 'kept');
    ensureDemoFolder(folder);
    expect(existsSync(join(folder, 'README.md'))).toBe(false);
    expect(readFileSync(join(folder, 'mine.txt'), 'utf8')).toBe('kept');
  });
});

describe('embeddedDefaultConfig', () => {
  it('runs fs on the demo folder and memory on the cache folder with this Node', () => {
    const cacheDir = scratch();
    const config = embeddedDefaultConfig({ resolve, cacheDir });
    expect(config.nativeTools).toEqual(['hash', 'time', 'calculate']);
    const servers = config.mcpServers ?? {};
    expect(Object.keys(servers)).toEqual(['fs', 'memory']);
    const { fs, memory } = servers;
    expect(fs).toMatchObject({
      command: process.execPath,
      args: [
        serverEntry('@modelcontextprotocol/server-filesystem', resolve),
        join(cacheDir, 'demo'),
      ],
    });
    expect(memory).toMatchObject({
      command: process.execPath,
      args: [serverEntry('@modelcontextprotocol/server-memory', resolve)],
      env: { MEMORY_FILE_PATH: join(cacheDir, 'memory.jsonl') },
    });
    expect(existsSync(join(cacheDir, 'demo', 'data', 'cities.json'))).toBe(true);
  });

  it('defaults the cache folder to toolwireCacheDir() and takes another Node binary', () => {
    const cache = scratch();
    vi.stubEnv('XDG_CACHE_HOME', cache);
    const config = embeddedDefaultConfig({ resolve, nodePath: '/opt/node/bin/node' });
    const root = toolwireCacheDir();
    expect(config.mcpServers?.fs?.command).toBe('/opt/node/bin/node');
    expect(config.mcpServers?.fs?.args?.at(-1)).toBe(join(root, 'demo'));
    expect(config.mcpServers?.memory?.env).toEqual({
      MEMORY_FILE_PATH: join(root, 'memory.jsonl'),
    });
  });

  it('is a configuration loadConfig accepts', () => {
    const config = loadConfig(embeddedDefaultConfig({ resolve, cacheDir: scratch() }));
    expect(Object.keys(config.mcpServers ?? {})).toEqual(['fs', 'memory']);
  });
});
