import { LRUCache } from 'lru-cache';
import { canonicalJson } from '@toolwire/schema';
import type { CallToolResult } from './tool-source.js';

interface Entry {
  server: string;
  result: CallToolResult;
}

/**
 * Where the forwarder keeps tool results. Keys come from `ResultCache.key` (client scope, tool,
 * canonical arguments); `server` is the upstream the tool belongs to, so a `list_changed` of that
 * upstream drops its entries. `get` answers synchronously when it can (the in-memory store always
 * does); a shared store may answer with a promise on a local miss.
 */
export interface ResultCacheStore {
  get(
    key: string,
    server: string,
  ): CallToolResult | undefined | Promise<CallToolResult | undefined>;
  /**
   * Stores `result` unless `server` was invalidated since `generation(server)` answered
   * `generation` (a read that raced a write must not be kept).
   */
  set(key: string, server: string, result: CallToolResult, generation?: number): void;
  /** A number that changes whenever `server`'s entries are dropped (in this process). */
  generation(server: string): number;
  /**
   * Drops every entry of `server` (for every sharer, when the store is shared). A shared store's
   * promise settles once the other sharers have been told.
   */
  invalidateServer(server: string): unknown;
  /** Entries held in this process. */
  readonly size: number;
  close?(): Promise<void>;
}

/**
 * Tool results in process memory, keyed by (client scope, tool, canonical arguments), with a TTL
 * and an entry bound (least recently used entries go first). The default `ResultCacheStore`.
 */
export class ResultCache implements ResultCacheStore {
  private readonly lru: LRUCache<string, Entry>;
  private readonly generations = new Map<string, number>();
  /** Bumped by `clear()`: a read that raced it is not kept, whatever its upstream. */
  private epoch = 0;

  constructor(options: { ttlMs: number; maxEntries: number }) {
    this.lru = new LRUCache<string, Entry>({
      max: options.maxEntries,
      ttl: options.ttlMs,
      ttlAutopurge: false,
    });
  }

  static key(scope: string, tool: string, args: unknown): string {
    return `${scope}\u0000${tool}\u0000${canonicalJson(args ?? {})}`;
  }

  get(key: string): CallToolResult | undefined {
    return this.lru.get(key)?.result;
  }

  generation(server: string): number {
    return this.epoch + (this.generations.get(server) ?? 0);
  }

  set(key: string, server: string, result: CallToolResult, generation?: number): void {
    if (generation !== undefined && generation !== this.generation(server)) return;
    this.lru.set(key, { server, result });
  }

  /** A copy of a shared entry, which keeps what is left of its TTL. */
  setWithTtl(key: string, server: string, result: CallToolResult, ttlMs: number): void {
    this.lru.set(key, { server, result }, { ttl: ttlMs });
  }

  /** Milliseconds left before `key` expires (0 when absent). */
  remainingTtl(key: string): number {
    return this.lru.has(key) ? Math.max(0, this.lru.getRemainingTTL(key)) : 0;
  }

  /** Drops the entries of `server`; answers how many there were. */
  invalidateServer(server: string): number {
    this.generations.set(server, (this.generations.get(server) ?? 0) + 1);
    let removed = 0;
    for (const [key, entry] of this.lru.entries()) {
      if (entry.server === server) {
        this.lru.delete(key);
        removed++;
      }
    }
    return removed;
  }

  /** Drops every entry; reads started before are not kept either. */
  clear(): void {
    this.epoch++;
    this.lru.clear();
  }

  get size(): number {
    return this.lru.size;
  }
}
