import type { ServerResponse } from 'node:http';
import type { AuthToken } from '@toolwire/config';
import type { JsonRpcId } from './json-rpc.js';

/** A 2026-07-28 `subscriptions/listen` stream. */
export interface Subscription {
  res: ServerResponse;
  token?: AuthToken;
  server?: string;
  subscriptionId: JsonRpcId;
  /** The list changes it asked for (default: tools only). */
  kinds?: ReadonlySet<ListKind>;
}

export type ListKind = 'tools' | 'prompts' | 'resources';

const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/** The open 2026-07-28 subscriptions of this process, and what they are told. */
export class Subscriptions {
  private readonly open = new Set<Subscription>();

  /** `onStream` is told of each subscription's response (long-lived: shutdown need not wait). */
  constructor(private readonly onStream?: (res: ServerResponse) => void) {}

  /**
   * Answers a `subscriptions/listen` request with its stream and acknowledgement: tool, prompt
   * and resource list changes (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`);
   * the acknowledgement names the ones honoured.
   */
  listen(
    res: ServerResponse,
    id: JsonRpcId,
    token: AuthToken | undefined,
    route: string | undefined,
    filter: Record<string, unknown> | boolean,
  ): void {
    const asked =
      typeof filter === 'boolean'
        ? { toolsListChanged: filter }
        : (filter as Record<string, unknown>);
    const kinds = new Set<ListKind>();
    if (asked.toolsListChanged === true) kinds.add('tools');
    if (asked.promptsListChanged === true) kinds.add('prompts');
    if (asked.resourcesListChanged === true) kinds.add('resources');
    const toolsListChanged = kinds.size > 0;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    if (toolsListChanged)
      this.add({
        res,
        ...(token ? { token } : {}),
        ...(route !== undefined ? { server: route } : {}),
        subscriptionId: id,
        kinds,
      });
    res.write(
      `event: message\ndata: ${JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/subscriptions/acknowledged',
        params: {
          notifications: Object.fromEntries([...kinds].map((kind) => [`${kind}ListChanged`, true])),
          _meta: { [SUBSCRIPTION_ID_META_KEY]: id },
        },
      })}\n\n`,
    );
  }

  /** Keeps a subscription (with a keep-alive comment every 15 s) until its response closes. */
  add(subscription: Subscription): void {
    this.onStream?.(subscription.res);
    this.open.add(subscription);
    const keepAlive = setInterval(() => subscription.res.write(': keepalive\n\n'), 15_000);
    keepAlive.unref();
    subscription.res.on('close', () => {
      clearInterval(keepAlive);
      this.open.delete(subscription);
    });
  }

  /** `notifications/<kind>/list_changed` to every subscription that covers `server`. */
  broadcast(kind: ListKind, server?: string): void {
    for (const subscription of this.open) {
      if (subscription.kinds && !subscription.kinds.has(kind)) continue;
      if (
        server !== undefined &&
        subscription.server !== undefined &&
        subscription.server !== server
      )
        continue;
      const message = {
        jsonrpc: '2.0',
        method: `notifications/${kind}/list_changed`,
        params: { _meta: { [SUBSCRIPTION_ID_META_KEY]: subscription.subscriptionId } },
      };
      subscription.res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    }
  }

  /** Shutdown: ends every subscription's stream. */
  close(): void {
    for (const subscription of this.open) subscription.res.end();
    this.open.clear();
  }
}
