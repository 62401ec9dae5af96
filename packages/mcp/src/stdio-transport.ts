import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, type Stream } from 'node:stream';
import {
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import { JsonRpcLines } from './json-rpc-lines.js';

export interface ProcessTransportOptions {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /** Keep this many bytes of the server's stderr for status reasons (default 8 KiB). */
  stderrLimit?: number;
  /** Every stderr line, as it arrives. */
  onStderr?: (line: string) => void;
  /** How long to wait after SIGTERM before SIGKILL on close (default 2000 ms). */
  killGraceMs?: number;
}

/** Environment variables a child inherits by default (the rest of ours stays private). */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : [
        'HOME',
        'LOGNAME',
        'PATH',
        'SHELL',
        'TERM',
        'USER',
        'LANG',
        'LC_ALL',
        'TMPDIR',
        'NODE_OPTIONS',
        'NODE_PATH',
        'XDG_CONFIG_HOME',
        'XDG_CACHE_HOME',
        'XDG_DATA_HOME',
        // Network settings a server started through npx/uvx needs to reach its registry (behind a
        // proxy or a TLS-inspecting gateway it hangs until the connect timeout without them).
        'NODE_EXTRA_CA_CERTS',
        'SSL_CERT_FILE',
        'SSL_CERT_DIR',
        'HTTP_PROXY',
        'HTTPS_PROXY',
        'NO_PROXY',
        'http_proxy',
        'https_proxy',
        'no_proxy',
      ];

export function defaultChildEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return env;
}

/** Every live child we spawned, so an exiting parent can take its process groups down with it. */
const liveChildren = new Set<ChildProcess>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of liveChildren) killGroup(child, 'SIGKILL');
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    // A negative pid addresses the whole process group (the child is its leader: detached).
    if (process.platform !== 'win32') process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/**
 * MCP over stdio, spawning the server as the leader of its own process group so that closing
 * kills everything it started (npx wrappers, shells, grandchildren): SIGTERM to the group, then
 * SIGKILL after a grace period. The server's stderr is captured (never inherited) and the tail is
 * kept for status reasons. It exposes `pid` and `stderr`, so the SDK treats it as a stdio transport.
 */
export class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly lines = new JsonRpcLines();
  private readonly stderrStream = new PassThrough();
  private stderrTail = '';
  private closed = false;
  private exited: Promise<void> | undefined;
  private readonly options: ProcessTransportOptions;
  /** Exit code or signal of the process, once it has exited. */
  exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(options: ProcessTransportOptions) {
    this.options = options;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get stderr(): Stream {
    return this.stderrStream;
  }

  /** The last few KiB the server wrote to stderr. */
  get stderrText(): string {
    return this.stderrTail;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error('ProcessTransport already started');
    installExitHook();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args ?? [], {
        env: { ...defaultChildEnvironment(), ...this.options.env },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
        windowsHide: true,
        shell: false,
      });
      this.child = child;
      liveChildren.add(child);
      this.exited = new Promise<void>((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        liveChildren.delete(child);
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        liveChildren.delete(child);
        this.exitStatus = { code, signal };
      });
      child.once('close', () => {
        this.child = child;
        if (!this.closed) {
          this.closed = true;
          this.onclose?.();
        }
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.lines.append(chunk);
        } catch (error) {
          this.onerror?.(error as Error);
          return;
        }
        this.drain();
      });
      child.stdout?.on('error', (error) => this.onerror?.(error));
      const limit = this.options.stderrLimit ?? 8192;
      let pending = '';
      child.stderr?.on('data', (chunk: Buffer) => {
        this.stderrStream.write(chunk);
        const text = chunk.toString('utf8');
        this.stderrTail = (this.stderrTail + text).slice(-limit);
        if (this.options.onStderr) {
          pending += text;
          const lines = pending.split('\n');
          pending = lines.pop() ?? '';
          for (const line of lines) if (line.trim() !== '') this.options.onStderr(line);
        }
      });
    });
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.lines.next();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed || !stdin.writable) {
        reject(new Error('Not connected: the server process is not running'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /** Ends the server: close stdin, SIGTERM the process group, SIGKILL it after the grace period. */
  async close(): Promise<void> {
    const child = this.child;
    const wasClosed = this.closed;
    this.closed = true;
    if (child && this.exitStatus === undefined) {
      child.stdin?.end();
      killGroup(child, 'SIGTERM');
      const grace = this.options.killGraceMs ?? 2000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.exited,
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            killGroup(child, 'SIGKILL');
            resolve();
          }, grace);
        }),
      ]);
      clearTimeout(timer);
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 500))]);
    } else if (child) {
      // The leader exited on its own; take down anything it left behind in its group.
      killGroup(child, 'SIGKILL');
    }
    this.lines.clear();
    this.stderrStream.end();
    if (!wasClosed) this.onclose?.();
  }
}
