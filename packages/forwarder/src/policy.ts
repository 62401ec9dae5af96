import { authTokensOf, type AuthToken, type ToolwireConfig } from '@toolwire/config';
import { compileGlobs, type GlobMatcher as Matcher } from '@toolwire/schema';

/** Why a tool is refused; `policy` names the rule so the error can say which one. */
export interface PolicyRefusal {
  policy: 'policy.block' | 'policy.allow' | 'auth.tokens.allow';
  message: string;
}

/**
 * Allow and block globs over exposed names, plus the per-token `allow` of `auth.tokens`. The same
 * decision serves `tools/list` and `tools/call`, so a client never sees what it cannot call.
 * Decisions are memoised per (client, tool): the hot path is a Map lookup.
 */
export class ToolPolicy {
  private readonly allow: Matcher | undefined;
  private readonly block: Matcher | undefined;
  private readonly tokenAllow = new Map<string, Matcher | undefined>();
  private readonly memo = new Map<string, PolicyRefusal | null>();

  constructor(config: ToolwireConfig) {
    this.allow = compileGlobs(config.policy?.allow);
    this.block = compileGlobs(config.policy?.block);
    for (const token of authTokensOf(config)) {
      this.tokenAllow.set(token.client, compileGlobs(token.allow));
    }
  }

  /** `null` when allowed. `client` is the token's client name, or undefined without auth. */
  check(tool: string, token?: AuthToken): PolicyRefusal | null {
    const key = token ? `${token.client}\u0000${tool}` : tool;
    const cached = this.memo.get(key);
    if (cached !== undefined) return cached;
    const decision = this.decide(tool, token);
    if (this.memo.size > 50_000) this.memo.clear();
    this.memo.set(key, decision);
    return decision;
  }

  private decide(tool: string, token?: AuthToken): PolicyRefusal | null {
    if (this.block?.(tool)) {
      return { policy: 'policy.block', message: `Tool "${tool}" is refused by policy.block` };
    }
    if (this.allow && !this.allow(tool)) {
      return { policy: 'policy.allow', message: `Tool "${tool}" is not in policy.allow` };
    }
    if (token) {
      const allowed = this.tokenAllow.get(token.client);
      if (allowed && !allowed(tool)) {
        return {
          policy: 'auth.tokens.allow',
          message: `Tool "${tool}" is not allowed for client "${token.client}" (auth.tokens.allow)`,
        };
      }
    }
    return null;
  }
}
