import type { AuthToken } from '@toolwire/forwarder';
import { HttpError } from './http-util.js';
import type { Runtime } from './runtime.js';

/** What a token may do beyond reaching tools: run code anywhere, use the chat endpoints. */
export type Grant = 'execute_code' | 'chat';

const REFUSALS: Record<Grant, string> = {
  execute_code: 'Forbidden: running code needs the grant "execute_code" (auth.tokens.allow)',
  chat: 'Forbidden: the chat endpoints need the grant "chat" (auth.tokens.allow)',
};

/** Whether the token holds `grant` (SPEC.md, Grants). */
export function holdsGrant(runtime: Runtime, token: AuthToken | undefined, grant: Grant): boolean {
  return runtime.forwarder.pipeline.policy.checkGrant(grant, token) === null;
}

/**
 * Refuses, before anything runs, a request that needs a grant the token does not hold: 403 naming
 * the grant (the token's own; nothing is said of what else exists).
 */
export function requireGrant(runtime: Runtime, token: AuthToken | undefined, grant: Grant): void {
  if (holdsGrant(runtime, token, grant)) return;
  throw new HttpError(
    403,
    REFUSALS[grant],
    -32001,
    {},
    { type: 'permission_error', param: null, code: 'grant_required' },
  );
}
