import type { AuthToken } from '@toolwire/config';
import type { CallPipeline } from './call/call-pipeline.js';
import type { HttpUpstream } from './http-upstream.js';
import {
  INVALID_PARAMS,
  isRecord,
  JsonRpcFault,
  METHOD_NOT_FOUND,
  resourceNotFound,
  unknownPrompt,
} from './json-rpc.js';
import type { ToolSource } from './tool-source.js';
import { namespacedUiContents, namespacedUiResource, upstreamUiUri } from './ui-resources.js';

type Item = [server: string, item: Record<string, unknown>];

/**
 * Resources, resource templates, prompts and completions: fanned out to the upstreams (or the one
 * of a passthrough route), named and filtered by policy. A resource is routed to the upstream
 * that listed it (or a template matching it).
 */
export class Catalog {
  private readonly resourceOwners = new Map<string, string>();

  constructor(
    private readonly source: ToolSource,
    private readonly pipeline: CallPipeline,
    private readonly timeoutMs: number,
  ) {}

  /** `prompts/list`: the prompts of the upstreams `token` reaches, those it may use, under their exposed names. */
  async listPrompts(
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<{ prompts: Record<string, unknown>[] }> {
    const prompts = await this.gather(
      route,
      'prompts/list',
      'prompts',
      signal,
      this.reachable(route, token),
    );
    return {
      prompts: prompts
        .map(([server, prompt]) => ({
          ...prompt,
          name: this.exposedPromptName(server, String(prompt.name), route),
        }))
        .filter(
          (prompt) =>
            !this.pipeline.policy.checkPrompt(this.promptPolicyName(prompt.name, route), token),
        ),
    };
  }

  /** `prompts/get` of an exposed prompt name. */
  getPrompt(
    params: Record<string, unknown>,
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (typeof params.name !== 'string')
      throw new JsonRpcFault(INVALID_PARAMS, 'params.name: expected the prompt name');
    const { server, name } = this.grantedPrompt(params.name, route, token);
    return this.upstreamRequest(server, 'prompts/get', { ...params, name }, signal);
  }

  /** `resources/list` or `resources/templates/list` over the upstreams `token` may read. */
  async listResources(
    method: 'resources/list' | 'resources/templates/list',
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const key = method === 'resources/list' ? 'resources' : 'resourceTemplates';
    const items = await this.gather(route, method, key, signal, this.readable(route, token));
    this.remember(items);
    if (route !== undefined) return { [key]: items.map(([, item]) => item) };
    const { separator } = this.pipeline;
    return { [key]: items.map(([server, item]) => namespacedUiResource(server, item, separator)) };
  }

  /** `resources/read`, routed to the upstream that owns the URI. */
  async readResource(
    params: Record<string, unknown>,
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<unknown> {
    if (typeof params.uri !== 'string')
      throw new JsonRpcFault(INVALID_PARAMS, 'params.uri: expected a resource URI');
    const ui = this.grantedUi(params.uri, route, token);
    if (ui) {
      const result = await this.upstreamRequest(
        ui.server,
        'resources/read',
        { ...params, uri: ui.uri },
        signal,
      );
      return namespacedUiContents(ui.server, result, this.pipeline.separator);
    }
    const owner = await this.grantedOwner(params.uri, route, token, signal);
    return this.upstreamRequest(owner, 'resources/read', params, signal);
  }

  /**
   * The upstream and its own URI of a namespaced `ui://` URI on the aggregated route (an MCP App:
   * see `ui-resources.ts`), when the token may read that upstream's resources; a URI of one it may
   * not read is not found, as one that does not exist. `undefined`: not such a URI.
   */
  private grantedUi(
    uri: string,
    route: string | undefined,
    token: AuthToken | undefined,
  ): { server: string; uri: string } | undefined {
    if (route !== undefined) return undefined;
    const ui = upstreamUiUri(uri, this.pipeline.separator, this.upstreamsFor(undefined));
    if (!ui) return undefined;
    const refusal = this.pipeline.policy.checkResources(ui.server, token);
    if (refusal) {
      this.pipeline.recordRefusal(`resource:${uri}`, ui.server, { token }, refusal.message);
      throw resourceNotFound(uri);
    }
    return ui;
  }

  /**
   * `resources/subscribe` / `unsubscribe`: refused by policy first (so a limited token learns
   * nothing more), then sent to the owning upstream by `forward` (the client's own upstream
   * session, whose updates reach it); without `forward`, or for an upstream it cannot reach, not
   * offered on this route.
   */
  async subscribe(
    method: string,
    params: Record<string, unknown>,
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
    forward?: (server: string) => Promise<{ result: unknown } | undefined>,
  ): Promise<unknown> {
    if (typeof params.uri !== 'string')
      throw new JsonRpcFault(INVALID_PARAMS, 'params.uri: expected a resource URI');
    const owner = await this.grantedOwner(params.uri, route, token, signal);
    const forwarded = await forward?.(owner);
    if (forwarded) return forwarded.result;
    throw new JsonRpcFault(
      METHOD_NOT_FOUND,
      `${method} is not offered here (no resources.subscribe capability); subscribe through /servers/<name>/mcp of an HTTP upstream`,
    );
  }

  /** `completion/complete` of a prompt's or a resource's argument. */
  async complete(
    params: Record<string, unknown>,
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const ref = isRecord(params.ref) ? params.ref : {};
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      const { server, name } = this.grantedPrompt(ref.name, route, token);
      return this.upstreamRequest(
        server,
        'completion/complete',
        { ...params, ref: { ...ref, name } },
        signal,
      );
    }
    if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      const ui = this.grantedUi(ref.uri, route, token);
      if (ui)
        return this.upstreamRequest(
          ui.server,
          'completion/complete',
          { ...params, ref: { ...ref, uri: ui.uri } },
          signal,
        );
      const owner = await this.grantedOwner(ref.uri, route, token, signal);
      return this.upstreamRequest(owner, 'completion/complete', params, signal);
    }
    throw new JsonRpcFault(INVALID_PARAMS, 'params.ref: expected a ref/prompt or ref/resource');
  }

  /**
   * The upstream and upstream-side name of a prompt the token may use; a prompt it may not use is
   * unknown, as one that does not exist (the rule goes to the audit line).
   */
  private grantedPrompt(
    exposed: string,
    route: string | undefined,
    token: AuthToken | undefined,
  ): { server: string; name: string } {
    const split = this.splitPromptName(exposed, route);
    if (!split || !this.upstreamsFor(route).includes(split.server)) throw unknownPrompt(exposed);
    const refusal = this.pipeline.policy.checkPrompt(this.promptPolicyName(exposed, route), token);
    if (refusal) {
      this.pipeline.recordRefusal(`prompt:${exposed}`, split.server, { token }, refusal.message);
      throw unknownPrompt(exposed);
    }
    return split;
  }

  /**
   * The upstream that owns `uri`, among those whose resources the token may read; a resource of
   * any other is not found, as one that does not exist (the rule goes to the audit line).
   */
  private async grantedOwner(
    uri: string,
    route: string | undefined,
    token: AuthToken | undefined,
    signal?: AbortSignal,
  ): Promise<string> {
    const readable = this.readable(route, token);
    // A route names its upstream, and a gateway of one upstream has no other to ask: the URI goes
    // to it unlisted. Elsewhere it must be listed by one the token may read.
    const owner =
      route !== undefined || this.upstreamsFor(undefined).length === 1
        ? readable[0]
        : await this.resourceOwner(uri, readable, signal);
    if (owner !== undefined) return owner;
    const hidden = route ?? this.knownOwner(uri);
    const refusal = hidden !== undefined && this.pipeline.policy.checkResources(hidden, token);
    if (refusal)
      this.pipeline.recordRefusal(`resource:${uri}`, hidden!, { token }, refusal.message);
    throw resourceNotFound(uri);
  }

  /** Upstreams of this route the token reaches at all. */
  private reachable(route: string | undefined, token: AuthToken | undefined): string[] {
    return this.upstreamsFor(route).filter((server) => this.pipeline.reaches(server, token));
  }

  /** Upstreams of this route whose resources the token may list and read. */
  private readable(route: string | undefined, token: AuthToken | undefined): string[] {
    return this.upstreamsFor(route).filter(
      (server) => !this.pipeline.policy.checkResources(server, token),
    );
  }

  private exposedPromptName(server: string, name: string, route: string | undefined): string {
    return route !== undefined ? name : `${server}${this.pipeline.separator}${name}`;
  }

  private promptPolicyName(name: string, route: string | undefined): string {
    return route !== undefined ? `${route}${this.pipeline.separator}${name}` : name;
  }

  /** Upstreams reachable for resources and prompts on this route. */
  private upstreamsFor(route: string | undefined): string[] {
    const names = this.source
      .servers()
      .filter((s) => s.status !== 'disabled')
      .map((s) => s.name);
    return route !== undefined ? names.filter((n) => n === route) : names;
  }

  private async upstreamRequest(
    server: string,
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const http: HttpUpstream | undefined = this.pipeline.httpUpstream(server);
    if (http) return http.request(method, params, { signal, timeoutMs: this.timeoutMs });
    const client = this.source.getClient?.(server) as Record<string, unknown> | undefined;
    const call = (fn: string) => {
      const method = client?.[fn];
      if (typeof method !== 'function') {
        throw new JsonRpcFault(
          METHOD_NOT_FOUND,
          `Upstream "${server}" offers no ${fn} through this registry`,
        );
      }
      return (method as (p: unknown, o?: unknown) => Promise<unknown>)
        .call(client, params, { signal })
        .catch((error: unknown) => {
          throw upstreamFault(error);
        });
    };
    switch (method) {
      case 'resources/list':
        return call('listResources');
      case 'resources/templates/list':
        return call('listResourceTemplates');
      case 'resources/read':
        return call('readResource');
      case 'prompts/list':
        return call('listPrompts');
      case 'prompts/get':
        return call('getPrompt');
      case 'completion/complete':
        return call('complete');
      default:
        throw new JsonRpcFault(METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  /** Fans a list request out to every upstream; a failing upstream is skipped, never fatal. */
  private async gather(
    route: string | undefined,
    method: string,
    key: string,
    signal?: AbortSignal,
    servers: string[] = this.upstreamsFor(route),
  ): Promise<Item[]> {
    const settled = await Promise.allSettled(
      servers.map(async (server) => {
        const items: Record<string, unknown>[] = [];
        let cursor: unknown;
        for (let page = 0; page < 64; page++) {
          const result = await this.upstreamRequest(
            server,
            method,
            cursor ? { cursor } : {},
            signal,
          );
          if (!isRecord(result) || !Array.isArray(result[key])) break;
          items.push(...(result[key] as Record<string, unknown>[]));
          cursor = result.nextCursor;
          if (typeof cursor !== 'string') break;
        }
        return items.map((item) => [server, item] as Item);
      }),
    );
    if (route !== undefined && servers.length > 0 && settled[0]?.status === 'rejected')
      throw settled[0].reason;
    return settled.flatMap((s) => (s.status === 'fulfilled' ? s.value : []));
  }

  private splitPromptName(
    name: string,
    route: string | undefined,
  ): { server: string; name: string } | undefined {
    if (route !== undefined) return { server: route, name };
    const at = name.indexOf(this.pipeline.separator);
    if (at <= 0) return undefined;
    return { server: name.slice(0, at), name: name.slice(at + this.pipeline.separator.length) };
  }

  private knownOwner(uri: string): string | undefined {
    const owner = this.resourceOwners.get(uri);
    if (owner) return owner;
    for (const [pattern, server] of this.resourceOwners) {
      const brace = pattern.indexOf('{');
      if (brace > 0 && uri.startsWith(pattern.slice(0, brace))) return server;
    }
    return undefined;
  }

  private remember(items: Item[]): void {
    for (const [server, item] of items) {
      const uri = item.uri ?? item.uriTemplate;
      if (typeof uri === 'string') this.resourceOwners.set(uri, server);
    }
  }

  /**
   * The upstream among `servers` that listed a URI (or a template matching it), listing them once
   * if unknown; `undefined` when none of them has it.
   */
  private async resourceOwner(
    uri: string,
    servers: string[],
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    if (servers.length === 0) return undefined;
    const known = this.knownOwner(uri);
    if (known !== undefined && servers.includes(known)) return known;
    this.remember(await this.gather(undefined, 'resources/list', 'resources', signal, servers));
    this.remember(
      await this.gather(
        undefined,
        'resources/templates/list',
        'resourceTemplates',
        signal,
        servers,
      ),
    );
    const owner = this.knownOwner(uri);
    return owner !== undefined && servers.includes(owner) ? owner : undefined;
  }
}

/**
 * An upstream's JSON-RPC error, as the MCP SDK client rejects with it (an error with an integer
 * `code`, its `message` and `data` as the upstream sent them), passed on unchanged: the client
 * reads `-32602 Resource … not found` as the upstream wrote it, not an internal error of ours.
 */
function upstreamFault(error: unknown): unknown {
  if (error instanceof JsonRpcFault || !(error instanceof Error)) return error;
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  if (typeof code !== 'number' || !Number.isInteger(code)) return error;
  return new JsonRpcFault(code, error.message, data);
}
