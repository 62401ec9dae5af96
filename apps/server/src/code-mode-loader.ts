import type * as CodeModeModule from '@toolwire/codemode';
import { authTokensOf } from '@toolwire/config';
import { sandboxShareOf } from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp';
import { ToolwireError } from '@toolwire/schema';
import { HttpError } from './http-util.js';

let loaded: Promise<typeof CodeModeModule> | undefined;
let applied: ToolwireConfig | undefined;

/**
 * `@toolwire/codemode` (the TypeScript checker, the sandbox), imported at its first use, never at
 * start, its sandbox kept open from then on, with the shares of the process-wide sandbox set from `config`: each token's `limits.runs`
 * and `limits.typeChecks` over `policy.limits` (the sandbox's own defaults where none are set).
 * Every use passes the config it serves, so a reloaded config's shares apply from its first use.
 */
export async function loadCodeMode(config: ToolwireConfig): Promise<typeof CodeModeModule> {
  const codeMode = await (loaded ??= import('@toolwire/codemode').then((module) => {
    // Held for the process's life: `/api/code` and the chat endpoints make a code mode per
    // request, and the sandbox would otherwise close after each one and start again for the next
    // (a fresh engine per script: hundreds of milliseconds on a busy machine). Idle, it keeps no
    // process alive.
    module.holdSharedSandbox();
    return module;
  }));
  if (applied !== config) {
    applied = config;
    const tokens = authTokensOf(config);
    codeMode.configureSharedSandbox({
      runs: sandboxShareOf(config, tokens, 'runs') ?? {},
      typeChecks: sandboxShareOf(config, tokens, 'typeChecks') ?? {},
    });
  }
  return codeMode;
}

/**
 * A run or type check refused because its owner's share of the sandbox is full
 * (`SandboxBusyError`) as the HTTP answer: 429 with `Retry-After`, a rate-limit error with
 * `retryAfterMs`. `undefined` for any other error.
 */
export function sandboxRefusal(error: unknown): HttpError | undefined {
  if (!ToolwireError.isInstance(error) || error.code !== 'rate_limited') return undefined;
  const retryAfterMs = (error as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof retryAfterMs !== 'number') return undefined;
  return new HttpError(
    429,
    `Refused: rate limit of the sandbox share reached. ${error.message}`,
    -32029,
    { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    { retryAfterMs, type: 'rate_limit_error', code: 'sandbox_busy' },
  );
}
