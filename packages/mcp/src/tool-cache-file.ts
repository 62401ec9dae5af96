import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PriorDiscovery, Tool as McpTool } from '@modelcontextprotocol/client';
import { canonicalJson, isPlainObject } from '@toolwire/schema';
import type { McpServerConfig } from '@toolwire/config';

export interface CachedServer {
  /** Identifies the server's launch settings; a changed config invalidates the entry. */
  fingerprint: string;
  tools: McpTool[];
  prior?: PriorDiscovery;
  protocolVersion?: string;
  updatedAt: string;
}

interface CacheDocument {
  version: 1;
  servers: Record<string, CachedServer>;
}

/** What identifies "the same server" across runs: how it is launched or reached. */
function serverFingerprint(config: McpServerConfig): string {
  return canonicalJson({
    command: config.command,
    args: config.args,
    cwd: config.cwd,
    url: config.url,
    transport: config.transport ?? config.type,
  });
}

/**
 * The last known tools of every server, persisted as JSON so that a restart with a server down
 * still lists its tools (as unavailable). Writes are atomic (temp file + rename).
 */
export class ToolCacheFile {
  readonly path: string;
  private document: CacheDocument = { version: 1, servers: {} };
  private readonly onError: (message: string) => void;

  constructor(path: string, onError: (message: string) => void) {
    this.path = path;
    this.onError = onError;
    this.load();
  }

  private load(): void {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.onError(`cannot read tool cache ${this.path}: ${(error as Error).message}`);
      return;
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (isPlainObject(parsed) && parsed.version === 1 && isPlainObject(parsed.servers))
        this.document = parsed as unknown as CacheDocument;
      else this.onError(`ignoring tool cache ${this.path}: unknown format`);
    } catch (error) {
      this.onError(
        `ignoring tool cache ${this.path}: not valid JSON (${(error as Error).message})`,
      );
    }
  }

  get(name: string, config: McpServerConfig): CachedServer | undefined {
    const entry = this.document.servers[name];
    if (!entry || entry.fingerprint !== serverFingerprint(config) || !Array.isArray(entry.tools))
      return undefined;
    return entry;
  }

  set(
    name: string,
    config: McpServerConfig,
    tools: McpTool[],
    prior: PriorDiscovery | undefined,
    protocolVersion: string | undefined,
  ): void {
    this.document.servers[name] = {
      fingerprint: serverFingerprint(config),
      tools,
      ...(prior ? { prior } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
      updatedAt: new Date().toISOString(),
    };
    this.save();
  }

  private save(): void {
    const temp = `${this.path}.${process.pid}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temp, `${JSON.stringify(this.document, null, 2)}\n`);
      renameSync(temp, this.path);
    } catch (error) {
      this.onError(`cannot write tool cache ${this.path}: ${(error as Error).message}`);
    }
  }
}
