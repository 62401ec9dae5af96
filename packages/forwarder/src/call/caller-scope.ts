import type { AnyTool, ToolSource as BaseToolSource } from '@toolwire/schema';
import type { AuthToken } from '@toolwire/config';
import { JsonRpcFault, toolErrorOf } from '../json-rpc.js';
import type { ToolPolicy } from '../policy.js';
import type {
  CallToolResult,
  SourceCallOptions,
  SourceServer,
  SourceTool,
  ToolSource,
} from '../tool-source.js';
import type { CallContext } from './call-context.js';
import type { ToolEntry, ToolIndex } from './tool-index.js';

/** Tools made for one caller on top of the pipeline's (code mode's `execute_code`). */
export interface CallerTools {
  /**
   * The added tools, run in process like native tools (policy, limits, audit and spans apply to
   * them by name); their `execute` gets the caller's tools as `context.tools`.
   */
  tools: readonly AnyTool[];
  /**
   * Which of the caller's other tools the aggregated `tools/list` still shows (default: every
   * one). Tools not shown stay callable by name, as the caller's token allows.
   */
  lists?: (name: string) => boolean;
}

/** Makes each caller's `CallerTools` (`CreateForwarderOptions.callerTools`). */
export interface CallerToolsProvider {
  /**
   * `tools` is what the caller may see and call (`CallPipeline.asCaller`); `undefined` adds
   * nothing. Asked on every `tools/list` of `/mcp` and on calls to a name the pipeline does not
   * know, so it should cache what it makes.
   */
  forCaller(caller: {
    token: AuthToken | undefined;
    tools: CallerToolSource;
    /**
     * Whether the caller may list and call a tool of this name (its grants and the policy): a
     * provider makes nothing it would not be allowed (code mode asks for `execute_code`).
     */
    allows: (name: string) => boolean;
  }): CallerTools | undefined | Promise<CallerTools | undefined>;
  /** Called when the forwarder closes. */
  close?(): Promise<void>;
}

/** The pipeline's tools as one caller sees them; calls through it run as that caller. */
export interface CallerToolSource extends BaseToolSource {
  listTools(): SourceTool[];
  callTool(name: string, args: unknown, options?: SourceCallOptions): Promise<CallToolResult>;
  /** The upstreams the caller reaches (with their `instructions` when the source has them). */
  servers(): SourceServer[];
  onToolsChanged(listener: (event: { server?: string }) => void): () => void;
}

/** What a client's views may show (`CallPipeline.scope`). */
export interface ViewScope {
  /** Granted `"*"`: everything, operator details (stderr) included. */
  all: boolean;
  /** Exposed names of the tools it may call. */
  tools: Set<string>;
  /** Upstreams it reaches (`native` for the built-in tools). */
  servers: Set<string>;
  /** The client whose own numbers it may see (`undefined` without auth). */
  client?: string;
}

/** The tools visible to a caller, and how many were hidden and why. */
export interface VisibleTools {
  tools: ToolEntry[];
  hiddenByPolicy: number;
  unavailable: number;
}

export interface CallerScopeOptions {
  source: ToolSource;
  index: ToolIndex;
  policy: ToolPolicy;
  callerTools?: CallerToolsProvider;
  /** Runs one call through the pipeline. */
  call: (name: string, args: unknown, context: CallContext) => Promise<CallToolResult>;
  /** Subscribes to tool changes. */
  onChange: (listener: (server: string) => void) => () => void;
}

/** What each caller may see and reach, and the tool source a caller's code calls through. */
export class CallerScope {
  constructor(private readonly options: CallerScopeOptions) {}

  /**
   * Why this client may not list or call the tool (by exposed and canonical name), or `null`. Code
   * mode's `execute_code` is matched by its name: the grant `execute_code`.
   */
  refusal(entry: ToolEntry, token: AuthToken | undefined) {
    return this.options.policy.check(entry.tool.name, token, entry.canonical);
  }

  /**
   * Whether the client reaches `server` at all: a tool of it is visible, its resources are
   * granted, or a pattern of its grants could name something of it (an idle upstream's tools are
   * not known yet). An upstream it does not reach is one that does not exist, to this client.
   */
  reaches(server: string, token: AuthToken | undefined): boolean {
    const { policy, index } = this.options;
    if (policy.couldReach(server, index.separator, token)) return true;
    for (const entry of index.all().values()) {
      if (entry.server === server && !this.refusal(entry, token)) return true;
    }
    return false;
  }

  /** Tools this client may see, plus how many were hidden and why. */
  visibleTools(token: AuthToken | undefined, server?: string): VisibleTools {
    const tools: ToolEntry[] = [];
    let hiddenByPolicy = 0;
    let unavailable = 0;
    for (const entry of this.options.index.all().values()) {
      if (server !== undefined && entry.server !== server) continue;
      if (this.refusal(entry, token)) {
        hiddenByPolicy++;
        continue;
      }
      if (entry.tool.status === 'unavailable') unavailable++;
      tools.push(entry);
    }
    return { tools, hiddenByPolicy, unavailable };
  }

  /**
   * What a client's views (metrics, readiness, dashboard) may show: everything for a token granted
   * `"*"`, else the tools it may call and the upstreams it reaches (a visible tool or its resources).
   */
  scope(token: AuthToken | undefined): ViewScope {
    const { policy, source } = this.options;
    const tools = new Set<string>();
    const servers = new Set<string>();
    for (const { tool, server } of this.visibleTools(token).tools) {
      tools.add(tool.name);
      servers.add(server);
    }
    for (const server of source.servers()) {
      if (!policy.checkResources(server.name, token)) servers.add(server.name);
    }
    return {
      all: policy.grantsEverything(token),
      tools,
      servers,
      ...(token ? { client: token.client } : {}),
    };
  }

  /**
   * The tools as one caller sees them: `listTools` gives what its token may see, and a call runs
   * through the pipeline as that caller (token, policy, rate limits, cache, audit with its
   * address), under `context.meta.traceparent` when set. What `/api/code`, the chat endpoints and
   * the native tools of a `/mcp` call (`context.tools`) call tools through.
   */
  asCaller(
    context: Pick<CallContext, 'token' | 'address' | 'meta' | 'signal'> = {},
  ): CallerToolSource {
    return {
      listTools: () => this.visibleTools(context.token).tools.map((entry) => entry.tool),
      callTool: async (name, args, options = {}) => {
        const meta = { ...context.meta, ...options.meta };
        const signal = options.signal ?? context.signal;
        try {
          return await this.options.call(name, args, {
            ...(context.token ? { token: context.token } : {}),
            ...(context.address !== undefined ? { address: context.address } : {}),
            ...(signal ? { signal } : {}),
            ...(Object.keys(meta).length > 0 ? { meta } : {}),
            ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          });
        } catch (error) {
          // A refusal reads as one to the model (permissionDenied, rateLimited, …).
          throw error instanceof JsonRpcFault ? toolErrorOf(error) : error;
        }
      },
      servers: () => {
        const scope = this.scope(context.token);
        return this.options.source
          .servers()
          .filter((server) => server.status !== 'disabled')
          .filter((server) => scope.all || scope.servers.has(server.name));
      },
      onToolsChanged: (listener) => this.options.onChange((server) => listener({ server })),
    };
  }

  /** The caller's own tools (`CallerToolsProvider`), as entries, with what else it lists. */
  async callerView(
    token: AuthToken | undefined,
  ): Promise<{ entries: ToolEntry[]; lists: (name: string) => boolean } | undefined> {
    const provider = this.options.callerTools;
    if (!provider) return undefined;
    const made = await provider.forCaller({
      token,
      tools: this.asCaller({ token }),
      allows: (name) => this.options.policy.check(name, token) === null,
    });
    if (!made) return undefined;
    const entries = made.tools.map((tool) => this.options.index.callerEntry(tool));
    return { entries, lists: made.lists ?? (() => true) };
  }

  /** A caller tool by name, when the caller has one of that name. */
  async callerEntry(token: AuthToken | undefined, name: string): Promise<ToolEntry | undefined> {
    if (!this.options.callerTools) return undefined;
    return (await this.callerView(token))?.entries.find((entry) => entry.tool.name === name);
  }

  /**
   * What the aggregated `tools/list` shows this caller: its caller tools it may use, then the
   * visible tools they leave listed.
   */
  async listedFor(token: AuthToken | undefined, visible: ToolEntry[]): Promise<ToolEntry[]> {
    const view = await this.callerView(token);
    if (!view) return visible;
    return [
      ...view.entries.filter((entry) => !this.refusal(entry, token)),
      ...visible.filter((entry) => view.lists(entry.tool.name)),
    ];
  }
}
