import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import envPaths from 'env-paths';
import type { ToolwireConfig } from '@toolwire/mcp';

// The same embedded default as `toolwire` (apps/cli/src/default-config.ts). Apps do not depend on
// each other, so it is repeated here until it moves into `@toolwire/mcp` as a shared helper.

const require = createRequire(import.meta.url);

/** Where Toolwire keeps its cache: `${XDG_CACHE_HOME:-~/.cache}/toolwire` on Linux. */
export function toolwireCacheDir(): string {
  return envPaths('toolwire', { suffix: '' }).cache;
}

/** The entry script of an MCP server package installed as this app's own dependency. */
export function serverEntry(packageName: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (bin === undefined) throw new Error(`${packageName} declares no "bin" entry`);
  return join(dirname(manifestPath), bin);
}

const DEMO_FILES: Record<string, string> = {
  'README.md': [
    '# Toolwire demo folder',
    '',
    'The `toolwire` CLI made this folder for its built-in configuration: the `fs` MCP server',
    '(@modelcontextprotocol/server-filesystem) may read and write here and nowhere else.',
    'Edit or delete anything; the CLI only recreates the folder when it is missing.',
    '',
  ].join('\n'),
  'notes/todo.txt': [
    '- try `toolwire tools list`',
    '- read this file with fs__read_text_file',
    '',
  ].join('\n'),
  'data/cities.json': `${JSON.stringify(
    [
      { name: 'Lisbon', country: 'Portugal', population: 545_000 },
      { name: 'Osaka', country: 'Japan', population: 2_750_000 },
      { name: 'Nairobi', country: 'Kenya', population: 4_400_000 },
    ],
    null,
    2,
  )}\n`,
};

/** Creates the demo folder with its sample files when it does not exist yet; returns its path. */
export function ensureDemoFolder(folder: string): string {
  if (existsSync(folder)) return folder;
  for (const [relative, text] of Object.entries(DEMO_FILES)) {
    const file = join(folder, relative);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return folder;
}

/**
 * The configuration used when there is no config file: the native tools plus two real MCP servers
 * shipped as dependencies, started with this very Node (never `npx`: no network, no global install).
 */
export function embeddedDefaultConfig(cacheDir = toolwireCacheDir()): ToolwireConfig {
  const demo = ensureDemoFolder(join(cacheDir, 'demo'));
  return {
    mcpServers: {
      fs: {
        command: process.execPath,
        args: [serverEntry('@modelcontextprotocol/server-filesystem'), demo],
        description: 'Files in the demo folder',
      },
      memory: {
        command: process.execPath,
        args: [serverEntry('@modelcontextprotocol/server-memory')],
        env: { MEMORY_FILE_PATH: join(cacheDir, 'memory.jsonl') },
        description: 'A knowledge graph kept in the cache folder',
      },
    },
    nativeTools: ['hash', 'time', 'calculate'],
  };
}
