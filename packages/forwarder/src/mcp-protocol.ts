/** Protocol revisions and the small pieces of each the forwarder speaks downstream. */
export const MODERN_PROTOCOL = '2026-07-28';
export const LEGACY_PROTOCOLS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const SUPPORTED_PROTOCOLS = [MODERN_PROTOCOL, ...LEGACY_PROTOCOLS];

/** Is this a protocol revision the forwarder knows (an upstream may negotiate a newer one)? */
export function isKnownProtocol(revision: string): boolean {
  return (SUPPORTED_PROTOCOLS as readonly string[]).includes(revision);
}
export const PROTOCOL_META_KEY = 'io.modelcontextprotocol/protocolVersion';
export const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

/** The `params` key each method names in the `Mcp-Name` header (2026-07-28). */
export const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The tasks extension routes by task (its requests name the task in Mcp-Name).
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export const LIST_METHODS = new Set([
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
]);
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** JSON-RPC error for a revision the server does not speak (`data: { supported, requested }`). */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** 2025-era methods that 2026-07-28 removed; a modern request for one gets HTTP 404 / -32601. */
export const REMOVED_IN_MODERN = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
]);
