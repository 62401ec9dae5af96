import { parseArgs } from 'node:util';
import { ConfigError } from '@toolwire/mcp';
import { ToolwireError, UsageError } from '@toolwire/schema';
import { DEFAULT_DRAIN_MS, DEFAULT_PORT, startServer, type RunningServer } from './start-server.js';
import { setupTelemetry, type Telemetry } from './telemetry.js';

export interface ServerArgs {
  configPath?: string;
  host: string;
  port: number;
  allowedHosts?: string[] | '*';
  requestTimeoutMs?: number;
  maxConnections?: number;
  maxConnectionsPerAddress?: number;
  drainMs: number;
  help: boolean;
}

const USAGE = `Usage: toolwire-server [--config FILE] [--host 127.0.0.1] [--port 8787] [--allowed-hosts a,b|*] [--request-timeout-ms 30000] [--max-connections 4096] [--max-connections-per-address 1024] [--drain-ms 5000]

  --config FILE         toolwire.config.json (default: ./toolwire.config.json if present, else the built-in configuration)
  --host HOST           address to bind (default 127.0.0.1)
  --port PORT           port (default 8787; 0 picks a free one)
  --allowed-hosts LIST  Host names, and browser origins (http://app.example:3000), accepted besides the gateway's own
                        (DNS-rebinding and cross-site protection); "*" behind a proxy that checks them (also TOOLWIRE_ALLOWED_HOSTS)
  --request-timeout-ms MS  a whole request, body included, must arrive within this (default 30000; headers: 10 s)
  --max-connections N   open connections in all (default 4096); one more is answered 503
  --max-connections-per-address N  open connections from one client address (default 1024); behind a
                        reverse proxy every connection comes from it: raise this to --max-connections
  --drain-ms MS         on SIGTERM, keep serving this long while /readyz answers 503, so a load balancer moves
                        away first; then stop listening and close each connection after its answer (default 5000; 0 stops at once)

Signals: SIGTERM drains (--drain-ms), then stops gracefully (in-flight calls finish, stdio servers are stopped);
SIGINT skips the drain; SIGHUP reloads the config.

Examples:
  toolwire-server                                  built-in config at http://127.0.0.1:8787 (MCP at /mcp, dashboard at /)
  toolwire-server --config ./toolwire.config.json --port 9000
  toolwire-server --host 0.0.0.0 --allowed-hosts gateway.example.com
  kill -HUP <pid>                                  reload the config without dropping connections
`;

/** Thrown for bad flags: one line, exit code 2. */

export function parseServerArgs(
  argv: string[],
  env: Record<string, string | undefined> = process.env,
): ServerArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        config: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        'allowed-hosts': { type: 'string' },
        'request-timeout-ms': { type: 'string' },
        'max-connections': { type: 'string' },
        'max-connections-per-address': { type: 'string' },
        'drain-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError({ message: (error as Error).message });
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError({
      message: `--port: expected a port number 0-65535, got "${values.port}"`,
    });
  }
  const hostsText = values['allowed-hosts'] ?? env.TOOLWIRE_ALLOWED_HOSTS;
  let allowedHosts: string[] | '*' | undefined;
  if (hostsText !== undefined && hostsText.trim() !== '') {
    allowedHosts =
      hostsText.trim() === '*'
        ? '*'
        : hostsText
            .split(',')
            .map((h) => h.trim().toLowerCase())
            .filter(Boolean);
  }
  const timeoutText = values['request-timeout-ms'];
  const requestTimeoutMs = timeoutText === undefined ? undefined : Number(timeoutText);
  if (
    requestTimeoutMs !== undefined &&
    (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs < 1000)
  ) {
    throw new UsageError({
      message: `--request-timeout-ms: expected a whole number of milliseconds >= 1000, got "${timeoutText}"`,
    });
  }
  const count = (flag: 'max-connections' | 'max-connections-per-address'): number | undefined => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1) {
      throw new UsageError({ message: `--${flag}: expected a whole number >= 1, got "${text}"` });
    }
    return value;
  };
  const maxConnections = count('max-connections');
  const maxConnectionsPerAddress = count('max-connections-per-address');
  const drainText = values['drain-ms'];
  const drainMs = drainText === undefined ? DEFAULT_DRAIN_MS : Number(drainText);
  if (!Number.isInteger(drainMs) || drainMs < 0) {
    throw new UsageError({
      message: `--drain-ms: expected a whole number of milliseconds >= 0, got "${drainText}"`,
    });
  }
  return {
    drainMs,
    ...(values.config !== undefined ? { configPath: values.config } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...(maxConnectionsPerAddress !== undefined ? { maxConnectionsPerAddress } : {}),
    host: values.host ?? '127.0.0.1',
    port,
    ...(allowedHosts !== undefined ? { allowedHosts } : {}),
    help: values.help === true,
  };
}

/** `toolwire-server`: starts, wires signals, and resolves with the exit code once stopped. */
export async function runServerCli(argv: string[]): Promise<number> {
  let args: ServerArgs;
  try {
    args = parseServerArgs(argv);
  } catch (error) {
    process.stderr.write(`toolwire-server: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  let server: RunningServer;
  let telemetry: Telemetry | undefined;
  try {
    telemetry = await setupTelemetry(process.env, (message) =>
      process.stderr.write(`toolwire-server: ${message}\n`),
    );
    let allowedHosts = args.allowedHosts;
    if (Array.isArray(allowedHosts))
      allowedHosts = [...allowedHosts, 'localhost', '127.0.0.1', '[::1]', '::1', args.host];
    server = await startServer({
      ...(args.configPath !== undefined ? { configPath: args.configPath } : {}),
      host: args.host,
      port: args.port,
      ...(allowedHosts !== undefined ? { allowedHosts } : {}),
      ...(args.requestTimeoutMs !== undefined ? { requestTimeoutMs: args.requestTimeoutMs } : {}),
      ...(args.maxConnections !== undefined ? { maxConnections: args.maxConnections } : {}),
      ...(args.maxConnectionsPerAddress !== undefined
        ? { maxConnectionsPerAddress: args.maxConnectionsPerAddress }
        : {}),
      drainMs: args.drainMs,
    });
  } catch (error) {
    const bad = error instanceof ConfigError || ToolwireError.isInstance(error);
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'EADDRINUSE'
        ? `port ${args.port} on ${args.host} is already in use (pass --port)`
        : (error as Error).message;
    process.stderr.write(`toolwire-server: ${message}\n`);
    await telemetry?.shutdown();
    return bad || code === 'EADDRINUSE' ? 2 : 1;
  }
  if (telemetry) process.stderr.write(`toolwire-server: traces exported (${telemetry.exporter})\n`);
  process.stderr.write(`toolwire-server: MCP at ${server.url}/mcp, dashboard at ${server.url}/\n`);
  // One stray rejection (a library's background task) must not take every client down with it.
  process.on('unhandledRejection', (reason) => {
    process.stdout.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'unhandled rejection', service: 'toolwire-server', error: reason instanceof Error ? reason.message : String(reason) })}\n`,
    );
  });
  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        // A second Ctrl-C means "now"; repeated SIGTERMs (supervisors, wrappers) change nothing.
        if (signal === 'SIGINT') {
          process.stderr.write('toolwire-server: second SIGINT, exiting now\n');
          process.exit(1);
        }
        return;
      }
      stopping = true;
      // SIGINT is someone at a terminal: no load balancer to wait for.
      const closed = signal === 'SIGINT' ? server.stopNow() : server.close();
      closed
        .then(() => telemetry?.shutdown())
        .then(
          () => resolve(0),
          (error: unknown) => {
            process.stderr.write(`toolwire-server: shutdown failed: ${(error as Error).message}\n`);
            resolve(1);
          },
        );
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGHUP', () => {
      server.reload().catch(() => {
        // Logged by reload; the running configuration stays.
      });
    });
  });
}
