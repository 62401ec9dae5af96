import { LRUCache } from 'lru-cache';
import type { CallToolResult } from './tool-source.js';

/** Canonical JSON: object keys sorted at every depth, so equal arguments give equal keys. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (record[key] === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `${out}}`;
}

interface Entry {
  server: string;
  result: CallToolResult;
}

/**
 * Tool results keyed by (client scope, tool, canonical arguments), with a TTL and an entry bound.
 * Invalidated per upstream when that upstream's tool list changes.
 */
export class ResultCache {
  private readonly lru: LRUCache<string, Entry>;

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

  set(key: string, server: string, result: CallToolResult): void {
    this.lru.set(key, { server, result });
  }

  invalidateServer(server: string): number {
    let removed = 0;
    for (const [key, entry] of this.lru.entries()) {
      if (entry.server === server) {
        this.lru.delete(key);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.lru.clear();
  }

  get size(): number {
    return this.lru.size;
  }
}
