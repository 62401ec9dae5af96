import { describe, expect, it } from 'vitest';
import { ResultCache } from './result-cache.js';

describe('ResultCache', () => {
  it('keys by client scope, tool and canonical arguments, bounded in size', () => {
    const cache = new ResultCache({ ttlMs: 60_000, maxEntries: 2 });
    const result = { content: [{ type: 'text', text: 'x' }] };
    cache.set(ResultCache.key('alice', 'fs__read', { b: 1, a: 2 }), 'fs', result);
    expect(cache.get(ResultCache.key('alice', 'fs__read', { a: 2, b: 1 }))).toBe(result);
    expect(cache.get(ResultCache.key('bob', 'fs__read', { a: 2, b: 1 }))).toBeUndefined();
    cache.set('k2', 'fs', result);
    cache.set('k3', 'mem', result);
    expect(cache.size).toBe(2);
  });

  it('drops only the entries of the upstream whose tools changed', () => {
    const cache = new ResultCache({ ttlMs: 60_000, maxEntries: 10 });
    const result = { content: [] };
    cache.set('a', 'fs', result);
    cache.set('b', 'fs', result);
    cache.set('c', 'mem', result);
    expect(cache.invalidateServer('fs')).toBe(2);
    expect(cache.get('c')).toBe(result);
  });
});

describe('ResultCache.set', () => {
  it('keeps nothing read before the upstream was invalidated', () => {
    const cache = new ResultCache({ ttlMs: 60_000, maxEntries: 10 });
    const before = cache.generation('fs');
    cache.invalidateServer('fs');
    cache.set('stale', 'fs', { content: [] }, before);
    expect(cache.get('stale')).toBeUndefined();
    cache.set('fresh', 'fs', { content: [] }, cache.generation('fs'));
    expect(cache.get('fresh')).toEqual({ content: [] });
  });

  it('takes a per-entry TTL (a copy of a shared entry keeps what is left of its TTL)', () => {
    const cache = new ResultCache({ ttlMs: 600_000, maxEntries: 10 });
    cache.setWithTtl('short', 'fs', { content: [] }, 1_000);
    cache.set('default', 'fs', { content: [] });
    expect(cache.remainingTtl('short')).toBeLessThanOrEqual(1_000);
    expect(cache.remainingTtl('default')).toBeGreaterThan(1_000);
    expect(cache.remainingTtl('absent')).toBe(0);
  });
});
