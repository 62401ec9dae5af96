import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import envPaths from 'env-paths';
import type { ToolwireConfig } from '@toolwire/config';

/** Where Toolwire keeps its cache: `${XDG_CACHE_HOME:-~/.cache}/toolwire` on Linux. */
export function toolwireCacheDir(): string {
  return envPaths('toolwire', { suffix: '' }).cache;
}

/**
 * Resolves a module specifier from the caller's own `node_modules`: `createRequire(import.meta.url)
 * .resolve` or `import.meta.resolve`. A file path or a `file:` URL is accepted.
 */
export type ResolveSpecifier = (specifier: string) => string;

/**
 * The entry script of an MCP server package, found through the caller's `resolve` (the server
 * packages are the application's dependencies, not this package's): its `package.json` `bin`
 * (the only one, or the first when there are several).
 */
export function serverEntry(packageName: string, resolve: ResolveSpecifier): string {
  const resolved = resolve(`${packageName}/package.json`);
  const manifestPath = resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
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

export interface EmbeddedDefaultConfigOptions {
  /**
   * Resolves `@modelcontextprotocol/server-filesystem` and `@modelcontextprotocol/server-memory`
   * from the application's own dependencies, e.g. `createRequire(import.meta.url).resolve`.
   */
  resolve: ResolveSpecifier;
  /** The cache folder holding `demo/` and `memory.jsonl`. Default: `toolwireCacheDir()`. */
  cacheDir?: string;
  /** The Node binary that runs the servers. Default: `process.execPath` (this very Node). */
  nodePath?: string;
}

/**
 * The configuration used when there is no config file: the native tools plus two real MCP servers
 * (`fs` on the demo folder `<cacheDir>/demo`, created with sample files when missing, and `memory`
 * keeping its graph in `<cacheDir>/memory.jsonl`), started with this very Node from the caller's
 * `node_modules` (never `npx`: no network, no global install).
 */
export function embeddedDefaultConfig(options: EmbeddedDefaultConfigOptions): ToolwireConfig {
  const cacheDir = options.cacheDir ?? toolwireCacheDir();
  const command = options.nodePath ?? process.execPath;
  const demo = ensureDemoFolder(join(cacheDir, 'demo'));
  return {
    mcpServers: {
      fs: {
        command,
        args: [serverEntry('@modelcontextprotocol/server-filesystem', options.resolve), demo],
        description: 'Files in the demo folder',
      },
      memory: {
        command,
        args: [serverEntry('@modelcontextprotocol/server-memory', options.resolve)],
        env: { MEMORY_FILE_PATH: join(cacheDir, 'memory.jsonl') },
        description: 'A knowledge graph kept in the cache folder',
      },
    },
    nativeTools: ['hash', 'time', 'calculate'],
  };
}
