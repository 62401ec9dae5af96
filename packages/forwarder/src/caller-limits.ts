import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import type { FairShareOptions } from '@toolwire/schema';
import { HttpError } from './http-helpers.js';
import { RATE_LIMITED } from './json-rpc.js';

/** What one caller may hold at once (`policy.limits`, a token's `limits` over it, these defaults). */
export interface CallerLimits {
  /** Live 2025-era sessions on this instance. */
  sessions: number;
  /** Open server-to-client streams on this instance. */
  streams: number;
  /** Tool calls to upstreams running at once, and waiting for their turn. */
  calls: { concurrent: number; queued: number };
}

/**
 * The defaults: enough for an agent, an IDE with several windows or a team sharing a token, and
 * a small part of what one instance holds (4096 connections in all), so one token flooding the
 * gateway takes its own share, not the others'. Code runs and type checks default to the
 * sandbox's own shares (half its pool, 16 queued).
 */
export const DEFAULT_CALLER_LIMITS: Readonly<CallerLimits> = Object.freeze({
  sessions: 256,
  streams: 32,
  calls: Object.freeze({ concurrent: 32, queued: 128 }),
});

/** The client name limits are kept under: the token's, or `anonymous` without auth. */
export function callerKey(token: AuthToken | undefined): string {
  return token?.client ?? 'anonymous';
}

/** The limits of one caller: its token's own over `policy.limits` over the defaults. */
export function callerLimitsOf(config: ToolwireConfig, token: AuthToken | undefined): CallerLimits {
  const shared = config.policy?.limits;
  const own = token?.limits;
  const pick = <K extends 'sessions' | 'streams'>(key: K): number =>
    own?.[key] ?? shared?.[key] ?? DEFAULT_CALLER_LIMITS[key];
  return {
    sessions: pick('sessions'),
    streams: pick('streams'),
    calls: {
      concurrent:
        own?.calls?.concurrent ??
        shared?.calls?.concurrent ??
        DEFAULT_CALLER_LIMITS.calls.concurrent,
      queued: own?.calls?.queued ?? shared?.calls?.queued ?? DEFAULT_CALLER_LIMITS.calls.queued,
    },
  };
}

/**
 * A sandbox share (`runs` or `typeChecks`) as `FairShareOptions` of `@toolwire/executor`:
 * `policy.limits` for every owner, each token's `limits` for its client. `undefined` when the
 * config sets none (the sandbox's own defaults hold).
 */
export function sandboxShareOf(
  config: ToolwireConfig,
  tokens: readonly AuthToken[],
  kind: 'runs' | 'typeChecks',
): FairShareOptions | undefined {
  const asShare = (share: { concurrent?: number; queued?: number } | undefined) => ({
    ...(share?.concurrent !== undefined ? { maxActive: share.concurrent } : {}),
    ...(share?.queued !== undefined ? { maxQueued: share.queued } : {}),
  });
  const owners: Record<string, ReturnType<typeof asShare>> = {};
  for (const token of tokens) {
    const own = token.limits?.[kind];
    if (own) owners[token.client] = asShare(own);
  }
  const shared = config.policy?.limits?.[kind];
  if (!shared && Object.keys(owners).length === 0) return undefined;
  return { ...asShare(shared), owners };
}

/**
 * A refusal by one of these limits: HTTP 429 with `Retry-After`, and a JSON-RPC rate-limit error
 * whose message says "rate limit" and whose `data` has `retryAfterMs` (SPEC: Errors).
 */
export function limitRefusal(
  token: AuthToken | undefined,
  what: 'sessions' | 'streams',
  held: number,
  retryAfterMs: number,
): HttpError {
  const setting = token
    ? `auth.tokens[].limits.${what} or policy.limits.${what}`
    : `policy.limits.${what}`;
  return new HttpError(
    429,
    `Refused: rate limit of open ${what} for client "${callerKey(token)}" reached (${held}, ${setting}); retry after ${retryAfterMs} ms`,
    RATE_LIMITED,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    { retryAfterMs, limit: what },
  );
}
