import { randomUUID } from 'node:crypto';
import { errorMessage, ToolwireError } from '@toolwire/schema';
import {
  UpstreamError,
  type HttpUpstream,
  type ServerRequestAnswer,
  type UpstreamMessage,
} from '../http-upstream.js';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isRecord,
  JsonRpcFault,
  UPSTREAM_TIMEOUT,
  UPSTREAM_UNAVAILABLE,
} from '../json-rpc.js';
import { runNativeTool } from './run-native-tool.js';
import type { CallToolResult, ToolSource } from '../tool-source.js';
import type { CallContext } from './call-context.js';
import type { CallerToolSource } from './caller-scope.js';
import type { HttpUpstreams } from './http-upstreams.js';
import type { UpstreamCredentials } from '../auth/upstream-credentials.js';
import { NATIVE, type ToolEntry } from './tool-index.js';
import type { UpstreamHealthMonitor } from './upstream-health.js';

export interface ExecuteUpstreamOptions {
  source: ToolSource;
  http: HttpUpstreams;
  /** The caller's identity towards upstreams that act as the caller (`mcpServers.<name>.auth`). */
  credentials: UpstreamCredentials;
  health: UpstreamHealthMonitor;
  /** Retry read-only/idempotent tools once on timeout or connection loss (default true). */
  retry?: boolean;
  /** The pipeline's tools as the caller of a native tool sees them (its `context.tools`). */
  asCaller: (
    context: Pick<CallContext, 'token' | 'address' | 'meta' | 'signal'>,
  ) => CallerToolSource;
}

/**
 * Runs an admitted call: a native tool in process under its timeout; an upstream's tool over the
 * lean HTTP channel when it has one, else through the source; behind the upstream's circuit
 * breaker, with one retry for read-only and idempotent tools on a timeout or a lost connection.
 * `args` were validated against the tool's schema by admission, so the source is told not to
 * check them again.
 */
export class UpstreamExecutor {
  private readonly retry: boolean;
  private progressSeq = 0;

  constructor(private readonly options: ExecuteUpstreamOptions) {
    this.retry = options.retry ?? true;
  }

  async execute(
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    if (entry.native) return this.runNative(entry, args, context, trace);
    if (entry.server === NATIVE) return this.viaSource(entry, args, context, trace);
    const { health } = this.options;
    const breaker = health.breaker(entry.server);
    const wait = breaker.acquire();
    if (wait > 0) {
      throw new JsonRpcFault(
        UPSTREAM_UNAVAILABLE,
        `Upstream "${entry.server}" is unavailable: circuit breaker open; retry after ${wait} ms`,
        { upstream: entry.server, retryAfterMs: wait, breaker: 'open' },
      );
    }
    const attempts = this.retry && entry.retryable ? 2 : 1;
    // An upstream that acts as the caller gets the caller's credential on every call.
    const authorization = this.options.credentials.carriesIdentity(entry.server)
      ? await this.options.credentials.authorization(entry.server, context.token)
      : undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const http = this.options.http.get(entry.server);
        if (authorization !== undefined && !http)
          throw new JsonRpcFault(
            UPSTREAM_UNAVAILABLE,
            `Upstream "${entry.server}" acts as the caller, which needs its streamable HTTP channel`,
            { upstream: entry.server },
          );
        const result = http
          ? await this.viaHttp(http, entry, args, context, trace, authorization)
          : await this.viaSource(entry, args, context, trace);
        breaker.success();
        if (http) health.markUp(entry.server);
        return result;
      } catch (error) {
        const transient = isTransient(error);
        if (error instanceof UpstreamError && error.kind === 'connection')
          health.markDown(entry.server, error.message);
        if (transient) breaker.failure();
        else if (!(error instanceof UpstreamError)) breaker.success();
        if (!transient || attempt >= attempts || context.signal?.aborted || breaker.acquire() > 0)
          throw error;
      }
    }
  }

  private runNative(
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    return withTimeout(entry, context.signal, (signal) =>
      runNativeTool(entry.native!, args, {
        signal,
        toolCallId: randomUUID(),
        onProgress: context.onProgress,
        // Tools this tool calls run as its caller, as children of this call's span.
        tools: this.options.asCaller({
          token: context.token,
          address: context.address,
          meta: trace,
          signal,
        }),
      }),
    );
  }

  private async viaHttp(
    http: HttpUpstream,
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
    authorization?: string,
  ): Promise<CallToolResult> {
    const meta: Record<string, unknown> = {};
    let ourToken: string | undefined;
    if (context.meta) {
      for (const key in context.meta) {
        if (key !== 'progressToken' && !key.startsWith('io.modelcontextprotocol/'))
          meta[key] = context.meta[key];
      }
    }
    if (context.meta?.progressToken !== undefined && context.onProgress) {
      // Our own token upstream, mapped back to the client's: ids and tokens never leak across hops.
      ourToken = `tw-${++this.progressSeq}`;
      meta.progressToken = ourToken;
    }
    Object.assign(meta, trace);
    const params: Record<string, unknown> = {
      ...context.extraParams,
      name: entry.tool.originalName,
      arguments: args,
    };
    if (Object.keys(meta).length > 0) params._meta = meta;
    const headers = authorization === undefined ? trace : { ...trace, authorization };
    const onNotification = (message: UpstreamMessage): void => {
      const p = message.params;
      if (
        message.method === 'notifications/progress' &&
        isRecord(p) &&
        p.progressToken === ourToken
      ) {
        context.onProgress?.({
          progress: Number(p.progress),
          ...(typeof p.total === 'number' ? { total: p.total } : {}),
          ...(typeof p.message === 'string' ? { message: p.message } : {}),
        });
      } else context.onNotification?.(message, entry.server);
    };
    const client = context.client;
    if (!client) {
      const result = await http.request('tools/call', params, {
        signal: context.signal,
        timeoutMs: entry.timeoutMs,
        headers,
        onNotification,
      });
      return settleHttpResult(result, entry, context.modern === true);
    }
    // The client's own upstream session, with its capabilities and its server-to-client requests.
    for (let attempt = 1; ; attempt++) {
      const session = await client.sessionFor(entry.server, http);
      const send = (
        overrides: {
          signal?: AbortSignal;
          onRequest?: (message: UpstreamMessage) => Promise<ServerRequestAnswer>;
          params?: Record<string, unknown>;
        } = {},
      ): Promise<unknown> =>
        http.request('tools/call', overrides.params ?? params, {
          signal: overrides.signal ?? context.signal,
          timeoutMs: entry.timeoutMs,
          headers,
          onNotification,
          capabilities: client.capabilities,
          ...(session !== undefined ? { session } : {}),
          onRequest:
            overrides.onRequest ?? ((message) => client.ask(entry.server, session, message)),
        });
      try {
        let result = client.around
          ? await client.around(entry.server, http, context.extraParams, send)
          : await send();
        // A 2026-07-28 upstream asks with input_required; a 2025-era client is asked as it knows.
        for (let round = 0; !context.modern && isInputRequired(result); round++) {
          if (round >= 16)
            throw new JsonRpcFault(
              INTERNAL_ERROR,
              `Upstream "${entry.server}" kept asking for input`,
            );
          const responses = await askInputRequests(result, (message) =>
            client.ask(entry.server, session, message),
          );
          result = await send({
            params: {
              ...params,
              inputResponses: responses,
              ...(typeof result.requestState === 'string'
                ? { requestState: result.requestState }
                : {}),
            },
          });
        }
        if (isRecord(result) && (isRecord(result.task) || result.resultType === 'task'))
          return (await client.taskCreated(
            entry.server,
            session,
            result,
            entry.tool.name,
          )) as CallToolResult;
        return settleHttpResult(result, entry, context.modern === true);
      } catch (error) {
        // The upstream restarted and forgot the session: a new one, once.
        if (session !== undefined && attempt === 1 && isSessionGone(error)) {
          await client.forget(entry.server, session);
          continue;
        }
        throw error;
      }
    }
  }

  private viaSource(
    entry: ToolEntry,
    args: unknown,
    context: CallContext,
    trace: Record<string, string>,
  ): Promise<CallToolResult> {
    return this.options.source.callTool(entry.tool.name, args, {
      signal: context.signal,
      timeoutMs: entry.timeoutMs,
      onProgress: context.onProgress,
      meta: { ...trace },
      argumentsValidated: entry.validator !== undefined,
    });
  }
}

function isInputRequired(result: unknown): result is Record<string, unknown> {
  return isRecord(result) && result.resultType === 'input_required';
}

/** Asks each of an `input_required` result's requests; the answers keyed as the upstream keyed them. */
async function askInputRequests(
  result: Record<string, unknown>,
  ask: (message: UpstreamMessage) => Promise<ServerRequestAnswer>,
): Promise<Record<string, unknown>> {
  const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
  const responses: Record<string, unknown> = {};
  await Promise.all(
    Object.entries(requests).map(async ([key, request]) => {
      if (!isRecord(request) || typeof request.method !== 'string') return;
      const answer = await ask({
        jsonrpc: '2.0',
        id: key,
        method: request.method,
        ...(isRecord(request.params) ? { params: request.params } : {}),
      });
      if ('result' in answer) responses[key] = answer.result;
    }),
  );
  return responses;
}

/** What an upstream's `tools/call` answer over HTTP means for the caller. */
function settleHttpResult(result: unknown, entry: ToolEntry, modern: boolean): CallToolResult {
  if (isRecord(result) && result.resultType === 'input_required') {
    // A multi-round-trip request for client input: a 2026-07-28 client answers it by calling again
    // with inputResponses (passed through above); a 2025-era session has no way to.
    if (modern) return result as CallToolResult;
    throw new JsonRpcFault(
      INVALID_REQUEST,
      `Tool "${entry.tool.name}" asks the client for input (2026-07-28 input_required), which a 2025-era session cannot answer; connect with protocol 2026-07-28 or through /servers/${entry.server}/mcp`,
      { upstream: entry.server, inputRequired: true },
    );
  }
  if (!isRecord(result) || !Array.isArray(result.content)) {
    throw new UpstreamError(
      entry.server,
      'protocol',
      `Upstream "${entry.server}" answered tools/call without a content array`,
    );
  }
  delete result.resultType;
  return result as CallToolResult;
}

async function withTimeout<T>(
  entry: ToolEntry,
  outer: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        new UpstreamError(
          entry.server,
          'timeout',
          `Tool "${entry.tool.name}" did not finish within ${entry.timeoutMs} ms`,
        ),
      );
    }, entry.timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onAbort);
  }
}

/** A failed call as the JSON-RPC error the client gets. */
export function toFault(error: unknown, entry: ToolEntry): JsonRpcFault {
  if (error instanceof JsonRpcFault) return error;
  if (error instanceof UpstreamError) {
    if (error.kind === 'timeout') {
      return new JsonRpcFault(
        UPSTREAM_TIMEOUT,
        `Tool "${entry.tool.name}" timed out after ${entry.timeoutMs} ms (upstream "${entry.server}")`,
        { upstream: entry.server, timeoutMs: entry.timeoutMs },
      );
    }
    if (error.kind === 'cancelled')
      return new JsonRpcFault(INTERNAL_ERROR, 'The call was cancelled', { cancelled: true });
    return new JsonRpcFault(UPSTREAM_UNAVAILABLE, error.message, {
      upstream: entry.server,
      reason: error.kind,
    });
  }
  if (ToolwireError.isInstance(error)) {
    if (error.code === 'server_unavailable') {
      return new JsonRpcFault(UPSTREAM_UNAVAILABLE, error.message, { upstream: entry.server });
    }
    if (error.code === 'timeout') {
      return new JsonRpcFault(UPSTREAM_TIMEOUT, error.message, {
        upstream: entry.server,
        timeoutMs: entry.timeoutMs,
      });
    }
    if (error.code === 'no_such_tool' || error.code.startsWith('tool_arguments_')) {
      return new JsonRpcFault(INVALID_PARAMS, error.message, { tool: entry.tool.name });
    }
  }
  return new JsonRpcFault(
    INTERNAL_ERROR,
    `Tool "${entry.tool.name}" failed: ${errorMessage(error)}`,
    { upstream: entry.server },
  );
}

/**
 * The upstream does not know a session of ours (it restarted and forgot it): HTTP 404, or the
 * 400 "no valid session" some servers answer instead.
 */
export function isSessionGone(error: unknown): boolean {
  if (error instanceof UpstreamError) return error.kind === 'http' && /\b404\b/.test(error.message);
  return (
    error instanceof JsonRpcFault &&
    (error.rpcCode === -32000 || error.rpcCode === -32001) &&
    /session/i.test(error.message)
  );
}

function isTransient(error: unknown): boolean {
  if (error instanceof UpstreamError)
    return error.kind === 'timeout' || error.kind === 'connection';
  return (
    ToolwireError.isInstance(error) &&
    (error.code === 'server_unavailable' || error.code === 'timeout')
  );
}

/** The `type` label of the errors metric. */
export function errorType(error: unknown): string {
  if (error instanceof UpstreamError) return error.kind;
  if (error instanceof JsonRpcFault) return `jsonrpc_${error.rpcCode}`;
  if (ToolwireError.isInstance(error)) return error.code;
  return 'internal';
}
