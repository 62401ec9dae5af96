import { authTokensOf, type AuthToken, type ToolwireConfig } from '@toolwire/config';
import { compileGlobs, type GlobMatcher as Matcher } from '@toolwire/schema';

/** Why a tool is refused; `policy` names the rule so the error can say which one. */
export interface PolicyRefusal {
  policy: 'policy.block' | 'policy.allow' | 'auth.tokens.allow' | 'auth.jwt.scopes';
  message: string;
}

/**
 * Grants that name what a token may do rather than a tool: `execute_code` runs code anywhere
 * (`execute_code` on `/mcp`, `/api/code`, code mode on the chat endpoints, the declarations code
 * mode shows), `chat` uses the chat endpoints. `"*"` (or no `allow`) grants both.
 */
export type Grant = 'execute_code' | 'chat';

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
  /** Per client, the literal start of each `allow` pattern (for `couldReach`). */
  private readonly tokenPrefixes = new Map<string, PatternPrefix[] | undefined>();
  private readonly allowPrefixes: PatternPrefix[] | undefined;
  /** The matchers of access tokens' grants (`auth.jwt.scopes`), by their patterns. */
  private readonly grantAllow = new Map<string, Matcher | undefined>();
  private readonly memo = new Map<string, Map<string, PolicyRefusal | null>>();

  constructor(config: ToolwireConfig) {
    this.allow = compileGlobs(config.policy?.allow);
    this.block = compileGlobs(config.policy?.block);
    this.allowPrefixes = config.policy?.allow?.map(patternPrefix);
    for (const token of authTokensOf(config)) {
      this.tokenPrefixes.set(
        token.client,
        token.allow === undefined || token.allow.includes('*')
          ? undefined
          : token.allow.map(patternPrefix),
      );
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

  /**
   * `null` when the token holds `grant`. `execute_code` is decided as the tool of that name is on
   * `/mcp` (`policy.allow`, `policy.block` and the token's `allow`), so code runs wherever it may
   * run there and nowhere else. `chat` is not a tool: the token's `allow` and `policy.block` decide.
   * `"*"` and an absent `allow` grant both.
   */
  checkGrant(grant: Grant, token?: AuthToken): PolicyRefusal | null {
    if (grant === 'execute_code') return this.check(grant, token);
    if (this.block?.(grant)) {
      return { policy: 'policy.block', message: `"${grant}" is refused by policy.block` };
    }
    const allowed = token && this.matcherOf(token);
    if (allowed && !allowed(grant)) {
      const rule = ruleOf(token);
      return {
        policy: rule,
        message: `Client "${token.client}" is not granted "${grant}" (${rule})`,
      };
    }
    return null;
  }

  /**
   * Whether a pattern of the token (and of `policy.allow`) could grant something of `server`: a
   * name `<server><separator>…` (a tool or prompt, known or not yet, as of an idle upstream) or
   * `resources:<server>`. What decides whether a token sees an upstream at all (its passthrough
   * route, its gateway tool, starting it when idle).
   */
  couldReach(server: string, separator: string, token?: AuthToken): boolean {
    const resources = resourcesPattern(server);
    const prefix = `${server}${separator}`;
    const fits = (patterns: PatternPrefix[] | undefined, match: Matcher | undefined): boolean =>
      patterns === undefined ||
      (match?.(resources) ?? false) ||
      patterns.some((pattern) =>
        pattern.literal
          ? pattern.prefix.startsWith(prefix)
          : prefix.startsWith(pattern.prefix) || pattern.prefix.startsWith(prefix),
      );
    if (!fits(this.allowPrefixes, this.allow)) return false;
    if (!token || this.grantsEverything(token)) return true;
    return fits(this.prefixesOf(token), this.matcherOf(token));
  }

  /** The token's own grants: `auth.tokens[].allow`, or an access token's scopes' (`auth.jwt.scopes`). */
  private matcherOf(token: AuthToken): Matcher | undefined {
    return token.identity ? this.grantsOf(token.allow) : this.tokenAllow.get(token.client);
  }

  private prefixesOf(token: AuthToken): PatternPrefix[] | undefined {
    if (!token.identity) return this.tokenPrefixes.get(token.client);
    return token.allow === undefined || token.allow.includes('*')
      ? undefined
      : token.allow.map(patternPrefix);
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
    const allowed = token && this.matcherOf(token);
    if (allowed && !names.some((name) => allowed(name))) {
      const rule = ruleOf(token);
      return {
        policy: rule,
        message:
          rule === 'auth.jwt.scopes'
            ? `${what} is not granted to "${token.client}" by its scopes (auth.jwt.scopes)`
            : `${what} is not allowed for client "${token.client}" (auth.tokens.allow)`,
      };
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

/** The rule that grants a token what it holds. */
function ruleOf(token: AuthToken): 'auth.tokens.allow' | 'auth.jwt.scopes' {
  return token.identity ? 'auth.jwt.scopes' : 'auth.tokens.allow';
}

/** The memo key of an access token's grants (`\u0001` first: never a static client's name). */
function grantsKey(allow: readonly string[] | undefined): string {
  return allow === undefined ? '\u0001*' : `\u0001${allow.join('\u0000')}`;
}

/** A pattern's literal start (up to its first glob character), and whether it is all literal. */
interface PatternPrefix {
  prefix: string;
  literal: boolean;
}

function patternPrefix(pattern: string): PatternPrefix {
  const at = pattern.search(/[*?[\]{}()!+@\\]/);
  return at === -1
    ? { prefix: pattern, literal: true }
    : { prefix: pattern.slice(0, at), literal: false };
}
