import type { ToolwireConfig } from '@toolwire/config';
import { HttpUpstream } from '../http-upstream.js';

/** Per-upstream streamable HTTP endpoints for the fast path (`CreateForwarderOptions.upstreams`). */
export type UpstreamEndpoints = Record<
  string,
  { url: string; headers?: Record<string, string>; protocol?: 'auto' | 'modern' | 'legacy' } | false
>;

/**
 * The lean HTTP channel of each upstream that speaks streamable HTTP, made on first use: the
 * `url` of `config.mcpServers.<name>` unless `endpoints` says otherwise (`false`: through the
 * source).
 */
export class HttpUpstreams {
  readonly open = new Map<string, HttpUpstream>();

  constructor(
    private readonly config: ToolwireConfig,
    private readonly endpoints: UpstreamEndpoints | undefined,
  ) {}

  get(server: string): HttpUpstream | undefined {
    const existing = this.open.get(server);
    if (existing) return existing;
    const override = this.endpoints?.[server];
    if (override === false) return undefined;
    const configured = this.config.mcpServers?.[server];
    const url = override?.url ?? configured?.url;
    if (!url || (!override && configured?.transport === 'sse') || configured?.enabled === false)
      return undefined;
    const upstream = new HttpUpstream({
      name: server,
      url,
      headers: override?.headers ?? configured?.headers,
      protocol: override?.protocol,
    });
    this.open.set(server, upstream);
    return upstream;
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((upstream) => upstream.close()));
    this.open.clear();
  }
}
