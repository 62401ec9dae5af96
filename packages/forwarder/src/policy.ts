import { authTokensOf, type AuthToken, type ToolwireConfig } from '@toolwire/config';
import { compileGlobs, type GlobMatcher as Matcher } from '@toolwire/schema';

/** Why a tool is refused; `policy` names the rule so the error can say which one. */
export interface PolicyRefusal {
  policy: 'policy.block' | 'policy.allow' | 'auth.tokens.allow' | 'auth.jwt.scopes';
  message: string;
}

/** What a pattern is matched against: a tool or prompt by name, an upstream's resources. */
export type PolicySubject =
  | { kind: 'tool' | 'prompt'; name: string; canonical?: string }
  | { kind: 'resources'; server: string };

/** The pattern that grants an upstream's resources and resource templates (SPEC.md). */
function resourcesPattern(server: string): string {
  return `resources:${server}`;
}

/**
 * Allow and block globs over exposed names, plus the per-token `allow` of `auth.tokens`. The same
 * decision serves the lists and the calls, so a client never sees what it cannot reach. Tools and
 * prompts match by name; a tool reached by an alias matches by its namespaced (canonical) name too,
 * so blocking the name blocks the alias. An upstream's resources match `resources:<server>`.
 * Decisions are memoised per (client, subject): the hot path is a Map lookup.
 */
export class ToolPolicy {
  private readonly allow: Matcher | undefined;
  private readonly block: Matcher | undefined;
  private readonly tokenAllow = new Map<string, Matcher | undefined>();
  /** The matchers of access tokens' grants (`auth.jwt.scopes`), by their patterns. */
  private readonly grantAllow = new Map<string, Matcher | undefined>();
  private readonly memo = new Map<string, Map<string, PolicyRefusal | null>>();

  constructor(config: ToolwireConfig) {
    this.allow = compileGlobs(config.policy?.allow);
    this.block = compileGlobs(config.policy?.block);
    for (const token of authTokensOf(config)) {
      // An explicit empty `allow` grants nothing; only an absent one grants everything.
      this.tokenAllow.set(
        token.client,
        token.allow?.length === 0 ? () => false : compileGlobs(token.allow),
      );
    }
  }

  /**
   * Whether the token is granted everything (`"*"`, or no `allow` at all; no token: no auth is
   * configured). Only such tokens see operator details such as an upstream's stderr.
   */
  grantsEverything(token?: AuthToken): boolean {
    return token === undefined || token.allow === undefined || token.allow.includes('*');
  }

  /** `null` when allowed. `canonical` is the namespaced name of a tool exposed under an alias. */
  check(tool: string, token?: AuthToken, canonical?: string): PolicyRefusal | null {
    return this.decision({ kind: 'tool', name: tool, canonical }, token);
  }

  /** `null` when the token may list and read the prompt (matched by its namespaced name). */
  checkPrompt(name: string, token?: AuthToken): PolicyRefusal | null {
    return this.decision({ kind: 'prompt', name }, token);
  }

  /** `null` when the token may list and reach the resources and templates of `server`. */
  checkResources(server: string, token?: AuthToken): PolicyRefusal | null {
    return this.decision({ kind: 'resources', server }, token);
  }

  private decision(subject: PolicySubject, token?: AuthToken): PolicyRefusal | null {
    // Per client, then per subject: a tool's exposed name stands for its canonical one (an alias
    // names one tool), so the hot path builds no key. An access token's decisions depend on its
    // grants alone (one subject may hold tokens of different scopes).
    const client = token?.identity ? grantsKey(token.allow) : (token?.client ?? '');
    let memo = this.memo.get(client);
    if (!memo) this.memo.set(client, (memo = new Map()));
    const key =
      subject.kind === 'resources'
        ? `resources\u0000${subject.server}`
        : subject.kind === 'tool'
          ? subject.name
          : `prompt\u0000${subject.name}`;
    const cached = memo.get(key);
    if (cached !== undefined) return cached;
    const names =
      subject.kind === 'resources'
        ? [resourcesPattern(subject.server)]
        : subject.canonical !== undefined && subject.canonical !== subject.name
          ? [subject.name, subject.canonical]
          : [subject.name];
    const decision = this.decide(subject, names, token);
    if (memo.size > 50_000) memo.clear();
    memo.set(key, decision);
    return decision;
  }

  private decide(
    subject: PolicySubject,
    names: readonly string[],
    token?: AuthToken,
  ): PolicyRefusal | null {
    const what =
      subject.kind === 'resources'
        ? `Resources of upstream "${subject.server}" (${names[0]})`
        : `${subject.kind === 'tool' ? 'Tool' : 'Prompt'} "${subject.name}"${
            names.length > 1 ? ` (${names[1]})` : ''
          }`;
    const block = this.block;
    if (block && names.some((name) => block(name))) {
      return { policy: 'policy.block', message: `${what} is refused by policy.block` };
    }
    const allow = this.allow;
    if (allow && !names.some((name) => allow(name))) {
      return { policy: 'policy.allow', message: `${what} is not in policy.allow` };
    }
    if (token?.identity) {
      const allowed = this.grantsOf(token.allow);
      if (allowed && !names.some((name) => allowed(name))) {
        return {
          policy: 'auth.jwt.scopes',
          message: `${what} is not granted to "${token.client}" by its scopes (auth.jwt.scopes)`,
        };
      }
    } else if (token) {
      const allowed = this.tokenAllow.get(token.client);
      if (allowed && !names.some((name) => allowed(name))) {
        return {
          policy: 'auth.tokens.allow',
          message: `${what} is not allowed for client "${token.client}" (auth.tokens.allow)`,
        };
      }
    }
    return null;
  }

  private grantsOf(allow: readonly string[] | undefined): Matcher | undefined {
    const key = grantsKey(allow);
    if (!this.grantAllow.has(key)) {
      if (this.grantAllow.size > 1_000) this.grantAllow.clear();
      this.grantAllow.set(key, allow?.length === 0 ? () => false : compileGlobs(allow));
    }
    return this.grantAllow.get(key);
  }
}

/** The memo key of an access token's grants (`\u0001` first: never a static client's name). */
function grantsKey(allow: readonly string[] | undefined): string {
  return allow === undefined ? '\u0001*' : `\u0001${allow.join('\u0000')}`;
}
