import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters } from 'jose';
import { AuthorizationServerError, fetchJson } from './authorization-server.js';

type JoseKey = Awaited<ReturnType<ReturnType<typeof createLocalJWKSet>>>;

export interface JwksCacheOptions {
  /** Where the keys are (resolved once, e.g. from the issuer's metadata). */
  url: () => Promise<string>;
  /**
   * The least time between two fetches caused by tokens naming a key the set does not have
   * (default 30 s): a stream of made-up `kid`s costs the issuer one request per interval.
   */
  unknownKeyCooldownMs?: number;
  /** Keys older than this are fetched again, once, when next used (default 10 min). */
  maxAgeMs?: number;
  /** After a failed fetch, the next one waits this long (default 5 s). */
  retryAfterMs?: number;
  /** Told of each fetch (tests count them; the gateway logs them). */
  onFetch?: (event: {
    url: string;
    reason: 'initial' | 'stale' | 'unknown-key';
    kids: string[];
  }) => void;
}

interface Loaded {
  set: ReturnType<typeof createLocalJWKSet>;
  kids: Set<string>;
  at: number;
}

/**
 * The issuer's signing keys, fetched once and kept: fetched again when they are older than
 * `maxAgeMs` (in the background, the old set serving meanwhile) or when a token names a `kid` the
 * set lacks (a key rotation), at most once per `unknownKeyCooldownMs`. Concurrent needs share one
 * fetch. Key selection is jose's: the JWK's `kty` (and `alg`, when it has one) must fit the token's
 * `alg`, so an HMAC `alg` never selects a public key.
 */
export class JwksCache {
  private loaded: Loaded | undefined;
  private pending: Promise<Loaded> | undefined;
  private lastUnknownKeyFetch = -Infinity;
  private failedAt = -Infinity;
  private failure: Error | undefined;
  private readonly cooldownMs: number;
  private readonly maxAgeMs: number;
  private readonly retryAfterMs: number;

  constructor(private readonly options: JwksCacheOptions) {
    this.cooldownMs = options.unknownKeyCooldownMs ?? 30_000;
    this.maxAgeMs = options.maxAgeMs ?? 600_000;
    this.retryAfterMs = options.retryAfterMs ?? 5_000;
  }

  /** The key for a token's protected header (jose's `getKey` of `jwtVerify`). */
  readonly getKey = async (header: JWSHeaderParameters): Promise<JoseKey> => {
    let current = await this.current();
    try {
      return await current.set(header);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // A kid the set knows, with an alg its key does not fit, is no rotation: refused as is.
      const kid = header.kid;
      if (kid === undefined || current.kids.has(kid)) throw error;
      const now = performance.now();
      if (now - this.lastUnknownKeyFetch < this.cooldownMs) throw error;
      this.lastUnknownKeyFetch = now;
      current = await this.fetch('unknown-key');
      return current.set(header);
    }
  };

  private async current(): Promise<Loaded> {
    const loaded = this.loaded;
    if (loaded) {
      if (performance.now() - loaded.at > this.maxAgeMs && !this.pending)
        void this.fetch('stale').catch(() => {});
      return loaded;
    }
    if (this.failure && performance.now() - this.failedAt < this.retryAfterMs) throw this.failure;
    return this.fetch('initial');
  }

  private fetch(reason: 'initial' | 'stale' | 'unknown-key'): Promise<Loaded> {
    this.pending ??= (async () => {
      try {
        const url = await this.options.url();
        const document = await fetchJson(url, 'JWKS');
        if (!Array.isArray(document.keys)) {
          throw new AuthorizationServerError({
            url,
            message: `JWKS at ${url} has no "keys" array`,
          });
        }
        const jwks = document as unknown as JSONWebKeySet;
        const kids = new Set(
          jwks.keys.map((key) => key.kid).filter((kid): kid is string => typeof kid === 'string'),
        );
        const loaded: Loaded = { set: createLocalJWKSet(jwks), kids, at: performance.now() };
        this.loaded = loaded;
        this.failure = undefined;
        this.options.onFetch?.({ url, reason, kids: [...kids] });
        return loaded;
      } catch (error) {
        this.failure = error as Error;
        this.failedAt = performance.now();
        throw error;
      }
    })().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }
}
