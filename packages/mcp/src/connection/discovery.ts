import type { Client, StandardSchemaV1, Tool as McpTool } from '@modelcontextprotocol/client';
import { canonicalJson } from '@toolwire/schema';
import type { Logger } from '../logger.js';

/** A Standard Schema that accepts any `tools/list` page whose `tools` is an array; tools are checked one by one later. */
export const lenientToolList: StandardSchemaV1<unknown, { tools: McpTool[]; nextCursor?: string }> =
  {
    '~standard': {
      version: 1,
      vendor: 'toolwire',
      validate: (value: unknown) => {
        const page = value as { tools?: unknown; nextCursor?: unknown } | null;
        if (page === null || typeof page !== 'object' || !Array.isArray(page.tools)) {
          return {
            issues: [{ message: 'tools/list result has no "tools" array', path: ['tools'] }],
          };
        }
        return {
          value: {
            tools: page.tools.filter(
              (tool): tool is McpTool => tool !== null && typeof tool === 'object',
            ) as McpTool[],
            ...(typeof page.nextCursor === 'string' ? { nextCursor: page.nextCursor } : {}),
          },
        };
      },
    },
  };

/** One `tools/list` page request (the connection wraps it in its re-authorization). */
export type ListPage = (params: {
  cursor?: string;
}) => Promise<{ tools: McpTool[]; nextCursor?: string }>;

/** Every page of a `tools/list`, followed by its cursors (a repeated cursor is an error). */
export async function listAllTools(listPage: ListPage): Promise<McpTool[]> {
  const all: McpTool[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  for (let page = 0; page < 1000; page++) {
    // Read the page leniently: one malformed tool must not hide the server's other tools.
    const result = await listPage(cursor === undefined ? {} : { cursor });
    all.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined || cursor === '') break;
    if (seen.has(cursor))
      throw new Error(`tools/list pagination loops (cursor ${JSON.stringify(cursor)} repeated)`);
    seen.add(cursor);
  }
  return all;
}

/** The `subscriptions/listen` filter for what the server says it notifies about. */
function listenFilter(client: Client): Record<string, true> {
  const capabilities = client.getServerCapabilities() ?? {};
  return {
    ...(capabilities.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(capabilities.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(capabilities.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
}

export function sameDefinitions(a: readonly McpTool[], b: readonly McpTool[]): boolean {
  return a.length === b.length && canonicalJson(a) === canonicalJson(b);
}

/** Logs what a new listing changed (added, removed, changed tools; annotations that changed). */
export function describeChanges(
  server: string,
  before: readonly McpTool[],
  after: readonly McpTool[],
  logger: Logger,
): void {
  if (before.length === 0) return;
  const old = new Map(before.map((tool) => [tool.name, tool]));
  const added = after.filter((tool) => !old.has(tool.name)).map((tool) => tool.name);
  const removed = before
    .filter((tool) => !after.some((t) => t.name === tool.name))
    .map((tool) => tool.name);
  const changed: string[] = [];
  for (const tool of after) {
    const previous = old.get(tool.name);
    if (!previous || canonicalJson(previous) === canonicalJson(tool)) continue;
    changed.push(tool.name);
    if (canonicalJson(previous.annotations ?? {}) !== canonicalJson(tool.annotations ?? {})) {
      logger.warn(
        `MCP server "${server}": annotations of tool "${tool.name}" changed from ${canonicalJson(previous.annotations ?? {})} to ${canonicalJson(tool.annotations ?? {})}`,
      );
    }
  }
  logger.info?.(
    `MCP server "${server}" tool list changed: added [${added.join(', ')}], removed [${removed.join(', ')}], changed [${changed.join(', ')}]`,
  );
}

type Subscription = NonNullable<Client['autoOpenedSubscription']>;

/**
 * On 2026-07-28, list changes come on a `subscriptions/listen` stream. The SDK opens one after a
 * server/discover probe, but not when connecting from a cached discovery, and never re-opens one
 * that ended: this opens one when needed (the SDK's counts once per client, `adopted`); the caller
 * checks the server when it ends and opens it again (or reconnects).
 */
export async function openListenStream(
  client: Client,
  options: { adopted: WeakSet<Client>; timeoutMs: number; onFailure: (error: unknown) => void },
): Promise<Subscription | undefined> {
  if ((client.getNegotiatedProtocolVersion() ?? '') < '2026-07-28') return undefined;
  const filter = listenFilter(client);
  if (Object.keys(filter).length === 0) return undefined;
  const subscription = options.adopted.has(client) ? undefined : client.autoOpenedSubscription;
  options.adopted.add(client);
  if (subscription) return subscription;
  try {
    return await client.listen(filter, { timeout: options.timeoutMs });
  } catch (error) {
    options.onFailure(error);
    return undefined;
  }
}
