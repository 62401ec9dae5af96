import type { ForwarderMetrics } from '../metrics.js';
import { ResultCache, type ResultCacheStore } from '../result-cache.js';
import type { CallToolResult } from '../tool-source.js';
import type { ToolEntry } from './tool-index.js';

/** A lookup's outcome: `key` is set when the tool is cacheable, `hit` when the store had it. */
export interface CacheLookup {
  key?: string;
  generation: number;
  hit?: CallToolResult | Promise<CallToolResult | undefined>;
}

/** The lookup of a tool that is not cached (one object for every such call: the hot path). */
const NOT_CACHED: CacheLookup = Object.freeze({ generation: 0 });

/**
 * The result cache as the pipeline uses it: results of cacheable tools (read-only or opted in)
 * per client and canonical arguments; a write or a tool list change drops its upstream's entries.
 */
export class CallCache {
  constructor(
    private readonly results: ResultCacheStore | undefined,
    private readonly metrics: ForwarderMetrics,
  ) {}

  /** The in-memory store answers synchronously: no promise (and no extra tick) on its hits. */
  lookup(entry: ToolEntry, client: string, name: string, args: unknown): CacheLookup {
    if (!entry.cacheable || !this.results) return NOT_CACHED;
    const generation = this.results.generation(entry.server);
    const key = ResultCache.key(client, name, args);
    const hit = this.results.get(key, entry.server);
    return hit === undefined ? { key, generation } : { key, generation, hit };
  }

  /** Counts a lookup of a cacheable tool as a hit or a miss. */
  count(name: string, lookup: CacheLookup, hit: CallToolResult | undefined): void {
    if (lookup.key !== undefined) this.metrics.cache(name, hit !== undefined);
  }

  /** Keeps a complete, successful result of a cacheable call (unless a write raced it). */
  keep(entry: ToolEntry, lookup: CacheLookup, result: CallToolResult): void {
    if (lookup.key === undefined || result.isError || result.resultType !== undefined) return;
    this.results?.set(lookup.key, entry.server, result, lookup.generation);
  }

  /** Drops `server`'s cached results (for every sharer of the store). */
  async invalidate(server: string): Promise<void> {
    await this.results?.invalidateServer(server);
  }
}
