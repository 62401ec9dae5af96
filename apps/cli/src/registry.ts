import { join } from 'node:path';
import {
  createRegistry,
  type Logger,
  type Registry,
  type ToolwireConfig,
} from '@toolwire/mcp/node';
import type { CliContext } from './context.js';
import { toolwireCacheDir } from './default-config.js';
import { createSpinner } from './spinner.js';

/** Warnings from the registry go to stderr, one line each; debug lines only with TOOLWIRE_DEBUG. */
function cliLogger(ctx: CliContext): Logger {
  const debug = ctx.env.TOOLWIRE_DEBUG !== undefined && ctx.env.TOOLWIRE_DEBUG !== '';
  return {
    warn: (message) => ctx.stderr.write(`${ctx.err.yellow('warning:')} ${message}\n`),
    error: (message) => ctx.stderr.write(`${ctx.err.red('error:')} ${message}\n`),
    ...(debug ? { debug: (message: string) => ctx.stderr.write(`${ctx.err.dim(message)}\n`) } : {}),
  };
}

/**
 * Starts a registry for one command and closes it afterwards (stdio servers are stopped even when
 * the command throws). While the servers connect, a spinner on stderr shows progress, only when
 * stderr is a terminal.
 *
 * `lazy`: a server whose tools are in the cache file from an earlier run is not started until the
 * command calls one of its tools (`code run`: a script that calls none starts no server); servers
 * the cache does not know are started at once, since their tools must be listed.
 */
export async function withRegistry<T>(
  ctx: CliContext,
  config: ToolwireConfig,
  use: (registry: Registry) => Promise<T>,
  options: { lazy?: boolean } = {},
): Promise<T> {
  const registry = createRegistry({
    config,
    cacheFile: join(toolwireCacheDir(), 'tools-cache.json'),
    logger: cliLogger(ctx),
    clientInfo: { name: 'toolwire-cli', version: '0.1.0' },
    ...(options.lazy ? { lazy: true } : {}),
  });
  try {
    await startWithProgress(ctx, registry, Object.keys(config.mcpServers ?? {}).length);
    if (options.lazy) {
      const unknown = registry
        .servers()
        .filter((server) => server.status === 'idle' && server.tools === 0);
      await Promise.all(unknown.map((server) => registry.connect(server.name)));
    }
    return await use(registry);
  } finally {
    await registry.close();
  }
}

async function startWithProgress(
  ctx: CliContext,
  registry: Registry,
  serverCount: number,
): Promise<void> {
  if (serverCount === 0 || ctx.stderr.isTTY !== true) {
    await registry.start();
    return;
  }
  const progress = createSpinner(ctx.stderr, ctx.err).start(
    `Connecting to ${serverCount} MCP server${serverCount === 1 ? '' : 's'}`,
  );
  const timer = setInterval(() => {
    const servers = registry.servers();
    const ready = servers.filter((server) => server.status !== 'connecting').length;
    progress.text = `Connecting to MCP servers (${ready}/${servers.length} ready)`;
  }, 150);
  try {
    await registry.start();
  } finally {
    clearInterval(timer);
    progress.stop();
  }
}
