import type { ServerResponse } from 'node:http';
import type { AuthToken, Forwarder } from '@toolwire/forwarder';
import type { Registry, ToolwireConfig } from '@toolwire/mcp';

/** The running pieces of a server, shared by its endpoints (a leaf: endpoints import it, not start-server). */
export interface Runtime {
  config: ToolwireConfig;
  registry: Registry;
  forwarder: Forwarder;
  tokens: ReadonlyMap<string, AuthToken>;
  /** Responses not finished yet (long-lived streams are marked with `markLongLived`). */
  active: Set<ServerResponse>;
  registryKey: string;
}
