import { formatIssues } from '@toolwire/schema';
import type { AuthToken, ToolwireConfig } from '@toolwire/config';
import type { ArgumentRules, ArgumentViolation } from '../argument-rules.js';
import { JsonRpcFault, POLICY_REFUSED, RATE_LIMITED, unknownTool } from '../json-rpc.js';
import type { ForwarderMetrics } from '../metrics.js';
import type { PolicyRefusal, ToolPolicy } from '../policy.js';
import type { RateLimiter } from '../rate-limiter.js';
import type { CallToolResult } from '../tool-source.js';
import type { Caller } from './call-context.js';
import type { CallRecord } from './call-record.js';
import { errorResult } from './tool-results.js';
import type { ToolEntry } from './tool-index.js';

export interface AdmissionOptions {
  config: ToolwireConfig;
  policy: ToolPolicy;
  /** Why this client may not call the tool, or `null` (`CallerScope.refusal`). */
  refusal: (entry: ToolEntry, token: AuthToken | undefined) => PolicyRefusal | null;
  rateLimiter: RateLimiter;
  rules: ArgumentRules;
  metrics: ForwarderMetrics;
  /** Where refusals are recorded (metrics and audit). */
  record: (record: CallRecord) => void;
}

/**
 * What admission decided: go ahead with `args`, or answer `result` (arguments the schema refuses).
 * `recheck`, when set, is asked once the call is done: a refusal it returns replaces the result
 * (a path argument that changed while the call ran).
 */
export type Admitted =
  | { args: unknown; result?: undefined; recheck?: () => Promise<JsonRpcFault | undefined> }
  | { result: CallToolResult; recheck?: undefined };

/**
 * Whether a call may run, in order: policy (allow/block, the token's grants), rate limits (per
 * client, per tool), the input schema, then `policy.paths`. Refusals throw `JsonRpcFault`s and
 * are recorded; arguments the schema refuses answer an `isError` result the model can read. A tool
 * the policy hides is answered as one that does not exist (`unknownTool`): which rule hid it goes
 * to the audit line only.
 */
export class Admission {
  constructor(private readonly options: AdmissionOptions) {}

  /** `shownAs`: the name the client used (a passthrough route's own name), for the answer. */
  async admit(
    entry: ToolEntry,
    name: string,
    args: unknown,
    caller: Caller,
    started: number,
    shownAs = name,
  ): Promise<Admitted> {
    const refusal = this.options.refusal(entry, caller.token);
    if (refusal) {
      this.refuse(entry, caller, args, started, refusal.message);
      throw unknownTool(shownAs);
    }
    const wait = await this.waitFor(entry, caller.client);
    if (wait) {
      const message = `Call refused: rate limit exceeded for ${wait.scope === 'client' ? `client "${caller.client}"` : `tool "${entry.tool.name}"`} (${wait.policy}); retry after ${wait.ms} ms`;
      this.options.metrics.rateLimited.labels(wait.scope).inc();
      this.refuse(entry, caller, args, started, message);
      throw new JsonRpcFault(RATE_LIMITED, message, {
        retryAfterMs: wait.ms,
        policy: wait.policy,
        tool: entry.tool.name,
      });
    }
    const input = args ?? {};
    if (entry.validator) {
      const checked = entry.validator.validate(input);
      if (!checked.success) {
        this.refuse(entry, caller, args, started, 'invalid arguments');
        return {
          result: errorResult(
            `Invalid arguments for tool "${name}": ${formatIssues(checked.issues)}`,
          ),
        };
      }
    }
    if (!this.options.rules.empty) {
      const confined = await this.options.rules.confine(
        [name, entry.canonical],
        input,
        entry.server,
      );
      if (confined.violation)
        throw this.pathRefusal(entry, name, caller, args, started, confined.violation);
      if (confined.handed.length > 0) {
        // The upstream gets the real paths that were checked, and they are checked again after.
        return {
          args: confined.args,
          recheck: async () => {
            const violation = await this.options.rules.recheck(confined.handed);
            return violation && this.pathRefusal(entry, name, caller, args, started, violation);
          },
        };
      }
    }
    return { args: input };
  }

  /** A `policy.paths` refusal, recorded (metrics and audit). */
  private pathRefusal(
    entry: ToolEntry,
    name: string,
    caller: Caller,
    args: unknown,
    started: number,
    violation: ArgumentViolation,
  ): JsonRpcFault {
    const message = `Argument ${violation.path} of tool "${name}" is refused by policy.paths: ${violation.message}`;
    this.refuse(entry, caller, args, started, message);
    return new JsonRpcFault(POLICY_REFUSED, message, {
      policy: 'policy.paths',
      tool: name,
      argument: violation.path,
    });
  }

  /**
   * A call to a name not (yet) in the listing, forwarded as it is (the passthrough relay): the
   * name-based rules and the client's rate limit still hold; the upstream answers for the rest.
   */
  async admitUnlisted(name: string, caller: Caller, shownAs = name): Promise<void> {
    if (this.options.policy.check(name, caller.token)) throw unknownTool(shownAs);
    const perMinute = this.options.config.policy?.rateLimit?.perMinute;
    if (perMinute === undefined) return;
    const wait = await this.options.rateLimiter.consume(`client:${caller.client}`, perMinute);
    if (wait > 0) {
      throw new JsonRpcFault(
        RATE_LIMITED,
        `Call refused: rate limit exceeded for client "${caller.client}" (policy.rateLimit.perMinute); retry after ${wait} ms`,
        { retryAfterMs: wait, policy: 'policy.rateLimit.perMinute', tool: name },
      );
    }
  }

  /** Records a refused call (metrics and its audit line). */
  private refuse(
    entry: ToolEntry,
    caller: Caller,
    args: unknown,
    started: number,
    error: string,
  ): void {
    this.options.record({ entry, caller, args, started, outcome: 'refused', error });
  }

  private async waitFor(
    entry: ToolEntry,
    client: string,
  ): Promise<{ ms: number; policy: string; scope: 'client' | 'tool' } | undefined> {
    const perMinute = this.options.config.policy?.rateLimit?.perMinute;
    if (perMinute !== undefined) {
      const ms = await this.options.rateLimiter.consume(`client:${client}`, perMinute);
      if (ms > 0) return { ms, policy: 'policy.rateLimit.perMinute', scope: 'client' };
    }
    if (entry.perToolLimit !== undefined) {
      const ms = await this.options.rateLimiter.consume(
        `tool:${client}:${entry.tool.name}`,
        entry.perToolLimit,
      );
      if (ms > 0) return { ms, policy: 'policy.rateLimit.perTool', scope: 'tool' };
    }
    return undefined;
  }
}
