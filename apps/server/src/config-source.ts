import { createHash } from 'node:crypto';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { loadConfig, type ToolwireConfig } from '@toolwire/mcp/node';
import { embeddedDefaultConfig } from './default-config.js';

export const DEFAULT_CONFIG_FILE = 'toolwire.config.json';

/** Where the gateway's config comes from, and how to read it again. */
export interface ConfigSource {
  load(): ToolwireConfig;
  file: string | undefined;
}

/** A config object (no file), the named file, `./toolwire.config.json`, or the embedded default. */
export function configSource(options: {
  config?: ToolwireConfig;
  configPath?: string;
  cwd?: string;
}): ConfigSource {
  if (options.config) {
    const config = options.config;
    return { load: () => loadConfig(config), file: undefined };
  }
  const cwd = options.cwd ?? process.cwd();
  const file =
    options.configPath !== undefined
      ? resolve(cwd, options.configPath)
      : existsSync(resolve(cwd, DEFAULT_CONFIG_FILE))
        ? resolve(cwd, DEFAULT_CONFIG_FILE)
        : undefined;
  if (file === undefined) return { load: () => loadConfig(embeddedDefaultConfig()), file };
  return { load: () => loadConfig(file), file };
}

/** What decides whether a reload can keep the running registry (its upstreams stay connected). */
export function registryKeyOf(config: ToolwireConfig): string {
  const { mcpServers, nativeTools, namespace, policy, gateway } = config;
  return JSON.stringify({
    mcpServers,
    nativeTools,
    namespace,
    timeoutMs: policy?.timeoutMs,
    gateway: gateway?.mode,
  });
}

/**
 * Calls `onChange` when the file's content changes. The folder is watched: editors replace the
 * file rather than write it in place; events within 150 ms count once.
 */
export function watchConfigFile(file: string, onChange: () => void): FSWatcher {
  let lastHash = hashFile(file);
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dirname(file), (_event, name) => {
    if (name !== null && name !== basename(file)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      const hash = hashFile(file);
      if (hash === undefined || hash === lastHash) return;
      lastHash = hash;
      onChange();
    }, 150);
  });
  watcher.unref();
  return watcher;
}

function hashFile(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}
