import type { ServerResponse } from 'node:http';
import type { Forwarder } from '@toolwire/forwarder';
import type { Registry, ToolwireConfig } from '@toolwire/mcp';

/** The running pieces of a server, shared by its endpoints (a leaf: endpoints import it, not start-server). */
export interface Runtime {
  config: ToolwireConfig;
  registry: Registry;
  forwarder: Forwarder;
  /** Responses not finished yet (long-lived streams are marked with `markLongLived`). */
  active: Set<ServerResponse>;
  registryKey: string;
}
