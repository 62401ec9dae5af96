import {
  compileGlobs,
  getSchemaValidator,
  type AnyTool,
  type GlobMatcher,
  type SchemaValidator,
} from '@toolwire/schema';
import type { ToolwireConfig } from '@toolwire/config';
import type { SourceTool, ToolSource } from '../tool-source.js';
import type { PinReview, ToolPins } from '../pins/tool-pins.js';

/** The `source` of tools that run in process (the registry's and the forwarder's own). */
export const NATIVE = 'native';

/** One callable tool with everything the pipeline decides about it, made once per listing. */
export interface ToolEntry {
  tool: SourceTool;
  server: string;
  /** `<server><separator><originalName>` (natives: their name): what policy patterns match. */
  canonical: string;
  validator: SchemaValidator | undefined;
  cacheable: boolean;
  /**
   * Neither annotated read-only nor opted into the cache: a call may change what the upstream's
   * reads answer, so its cached entries are dropped after it.
   */
  writes: boolean;
  retryable: boolean;
  timeoutMs: number;
  perToolLimit: number | undefined;
  /** Set for a tool that runs in this process (the forwarder's native and caller tools). */
  native?: AnyTool;
  /** An upstream tool's standing against its pinned definition (`policy.pinning`). */
  pin?: PinReview;
}

export interface ToolIndexOptions {
  source: ToolSource;
  config: ToolwireConfig;
  /** Extra in-process tools, exposed under their own names (listed first). */
  nativeTools?: readonly AnyTool[];
  /** Glob over exposed names → timeout in ms. */
  toolTimeouts?: Record<string, number>;
  /** Compile a validator per input schema (default true). */
  validateArguments?: boolean;
  /** Results of read-only tools may be cached. */
  cacheReadOnly: boolean;
  /** Whether a result store exists at all. */
  cacheAvailable: boolean;
  /** Pinned definitions: upstream tools whose definition changed may be held back. */
  pins?: ToolPins;
}

/** Lookups built with one listing: by exposed name, by namespaced name, by route-local name. */
interface Listing {
  byName: Map<string, ToolEntry>;
  /** Upstream tools held back until an admin approves their changed definition, by exposed name. */
  held: Map<string, ToolEntry>;
  byCanonical?: Map<string, ToolEntry>;
  byRoute?: Map<string, Map<string, ToolEntry>>;
}

/**
 * The tools the forwarder can call, keyed by exposed name (native first, then the source's), each
 * resolved once into a `ToolEntry`. Rebuilt lazily after `invalidate()` (a tool list changed).
 */
export class ToolIndex {
  readonly separator: string;
  private readonly natives: Map<string, AnyTool>;
  private readonly timeouts: Array<[GlobMatcher, number]>;
  private readonly perTool: Array<[GlobMatcher, number]>;
  private readonly cacheTools: GlobMatcher | undefined;
  private listing: Listing | undefined;
  /** Entries of caller tools (code mode's `execute_code`), made once per tool object. */
  private readonly callerEntries = new WeakMap<AnyTool, ToolEntry>();

  constructor(private readonly options: ToolIndexOptions) {
    const { config } = options;
    this.separator = config.namespace?.separator ?? '__';
    this.natives = new Map((options.nativeTools ?? []).map((tool) => [tool.name, tool]));
    this.timeouts = globTable(options.toolTimeouts);
    this.perTool = globTable(config.policy?.rateLimit?.perTool);
    this.cacheTools = compileGlobs(config.cache?.tools);
  }

  /** Every tool, native first, keyed by exposed name. */
  all(): Map<string, ToolEntry> {
    return this.current().byName;
  }

  /** The entry of an exposed name, or of a namespaced name exposed under an alias. */
  resolve(name: string): ToolEntry | undefined {
    return this.all().get(name) ?? this.byCanonicalName(name);
  }

  /** The entry of a namespaced name (`<server><separator><originalName>`). */
  byCanonicalName(name: string): ToolEntry | undefined {
    const listing = this.current();
    listing.byCanonical ??= new Map(
      [...listing.byName.values()].map((entry) => [entry.canonical, entry]),
    );
    return listing.byCanonical.get(name);
  }

  /** The entry of a tool by its upstream's own name (the `/servers/<name>/mcp` route). */
  onRoute(server: string, originalName: string): ToolEntry | undefined {
    const listing = this.current();
    if (!listing.byRoute) {
      const byRoute = new Map<string, Map<string, ToolEntry>>();
      for (const entry of listing.byName.values()) {
        let names = byRoute.get(entry.server);
        if (!names) byRoute.set(entry.server, (names = new Map()));
        if (!names.has(entry.tool.originalName)) names.set(entry.tool.originalName, entry);
      }
      listing.byRoute = byRoute;
    }
    return listing.byRoute.get(server)?.get(originalName);
  }

  /** The entry of a tool made for one caller (kept as long as the tool object lives). */
  callerEntry(tool: AnyTool): ToolEntry {
    let entry = this.callerEntries.get(tool);
    if (!entry) {
      entry = this.entry({ ...tool, originalName: tool.name, source: NATIVE, status: 'ok' }, tool);
      this.callerEntries.set(tool, entry);
    }
    return entry;
  }

  /** Upstream tools held back (`policy.pinning.mode: "hold"`), by exposed name. */
  held(): Map<string, ToolEntry> {
    return this.current().held;
  }

  /** Whether the tool of this namespaced name is held back. */
  isHeld(canonical: string): boolean {
    for (const entry of this.current().held.values())
      if (entry.canonical === canonical) return true;
    return false;
  }

  /** A tool list changed: the next lookup lists again. */
  invalidate(): void {
    this.listing = undefined;
  }

  private current(): Listing {
    if (this.listing) return this.listing;
    const byName = new Map<string, ToolEntry>();
    for (const tool of this.natives.values()) {
      byName.set(
        tool.name,
        this.entry({ ...tool, originalName: tool.name, source: NATIVE, status: 'ok' }, tool),
      );
    }
    const held = new Map<string, ToolEntry>();
    const tools = this.options.source.listTools();
    const pins = this.options.pins;
    // The names of each server's tools, for flagging a description that names another server's.
    let names: Map<string, string[]> | undefined;
    const otherTools = (server: string): Iterable<string> => {
      names ??= toolNamesByServer(tools, this.separator);
      return [...names].flatMap(([owner, list]) => (owner === server ? [] : list));
    };
    for (const tool of tools) {
      if (byName.has(tool.name)) continue;
      const entry = this.entry(tool);
      if (pins && tool.source !== NATIVE) {
        entry.pin = pins.review(entry.canonical, tool, () => otherTools(tool.source));
        if (entry.pin.status === 'held') {
          held.set(tool.name, entry);
          continue;
        }
      }
      byName.set(tool.name, entry);
    }
    this.listing = { byName, held };
    return this.listing;
  }

  private entry(tool: SourceTool, native?: AnyTool): ToolEntry {
    const { config } = this.options;
    const annotations = tool.annotations ?? {};
    const readOnly = annotations.readOnlyHint === true;
    const optedIn = this.cacheTools?.(tool.name) ?? false;
    const idempotent = annotations.idempotentHint === true && annotations.destructiveHint !== true;
    return {
      tool,
      server: tool.source,
      canonical:
        tool.source === NATIVE ? tool.name : `${tool.source}${this.separator}${tool.originalName}`,
      validator: this.options.validateArguments === false ? undefined : validatorOf(tool),
      cacheable:
        this.options.cacheAvailable && ((this.options.cacheReadOnly && readOnly) || optedIn),
      writes: native === undefined && tool.source !== NATIVE && !readOnly && !optedIn,
      retryable: readOnly || idempotent,
      timeoutMs:
        this.timeouts.find(([match]) => match(tool.name))?.[1] ??
        config.policy?.timeoutMs ??
        30_000,
      perToolLimit: this.perTool.find(([match]) => match(tool.name))?.[1],
      ...(native ? { native } : {}),
    };
  }
}

/**
 * Per server, the names a description could use to point at its tools: the namespaced names, and
 * the upstream names that look like identifiers (`read_file`, not `echo`).
 */
function toolNamesByServer(tools: readonly SourceTool[], separator: string): Map<string, string[]> {
  const byServer = new Map<string, string[]>();
  for (const tool of tools) {
    if (tool.source === NATIVE) continue;
    let list = byServer.get(tool.source);
    if (!list) byServer.set(tool.source, (list = []));
    list.push(`${tool.source}${separator}${tool.originalName}`);
    if (tool.name !== list.at(-1)) list.push(tool.name);
    if (/[_-]/.test(tool.originalName) && tool.originalName.length >= 5)
      list.push(tool.originalName);
  }
  return byServer;
}

function validatorOf(tool: SourceTool): SchemaValidator | undefined {
  try {
    return getSchemaValidator(tool.inputSchema);
  } catch {
    // A schema ajv cannot compile is the upstream's business: forward without our check.
    return undefined;
  }
}

function globTable(table: Record<string, number> | undefined): Array<[GlobMatcher, number]> {
  return Object.entries(table ?? {}).map(([glob, value]) => [compileGlobs([glob])!, value]);
}
