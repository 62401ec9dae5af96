import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CallPipeline } from './call/call-pipeline.js';
import type { AuthToken } from '@toolwire/config';
import type { HttpUpstream } from './http-upstream.js';
import { readBody } from './http-helpers.js';
import {
  BATCHES_REFUSED,
  errorResponse,
  INVALID_REQUEST,
  invalidIdReason,
  isRecord,
  JsonRpcFault,
  resourceNotFound,
  unknownPrompt,
} from './json-rpc.js';
import { formatSseEvent, parseSseText } from './sse.js';

const FORWARDED_HEADERS = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
  'traceparent',
  'tracestate',
];
const RETURNED_HEADERS = [
  'content-type',
  'mcp-session-id',
  'cache-control',
  'www-authenticate',
  'allow',
];

export interface RelayOptions {
  req: IncomingMessage;
  res: ServerResponse;
  server: string;
  upstream: HttpUpstream;
  pipeline: CallPipeline;
  /** The request's authenticated token. */
  token: AuthToken | undefined;
  /** Largest request body relayed; a larger one is answered 413 (and drained, so it is read). */
  maxBody: number;
}

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/**
 * `/servers/<name>/mcp` for a streamable HTTP upstream: the exchange is relayed as it is (upstream
 * names, the upstream's session, SSE streams, server-to-client requests such as sampling and
 * elicitation, resumption), with our policy in front. `tools/call` is admitted by the same policy,
 * rate limits and argument checks as the aggregated route (patterns match the namespaced name);
 * `tools/list` answers are filtered to what the caller may call.
 */
export async function relayPassthrough(options: RelayOptions): Promise<void> {
  const { req, res, server, upstream, pipeline, token } = options;
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  let body: Buffer | undefined;
  let message: Record<string, unknown> | undefined;
  let callName: string | undefined;
  let callArgs: unknown;
  let recheck: (() => Promise<JsonRpcFault | undefined>) | undefined;
  if (req.method === 'POST') {
    body = await readBody(req, options.maxBody);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (Array.isArray(parsed)) {
      reply(res, 400, errorResponse(INVALID_REQUEST, BATCHES_REFUSED));
      return;
    }
    if (isRecord(parsed)) message = parsed;
    const badId = message && invalidIdReason(message);
    if (badId) {
      reply(res, 400, errorResponse(INVALID_REQUEST, badId));
      return;
    }
    const refusal = message && surfaceRefusal(message, server, pipeline, token);
    if (refusal) {
      reply(res, 200, { jsonrpc: '2.0', id: message!.id ?? null, error: refusal.toError() });
      return;
    }
    if (
      message?.method === 'tools/call' &&
      isRecord(message.params) &&
      typeof message.params.name === 'string'
    ) {
      callName = `${server}${pipeline.separator}${message.params.name}`;
      callArgs = message.params.arguments;
      try {
        const admitted = await pipeline.admit(callName, callArgs, token, message.params.name);
        if (admitted.result) {
          reply(res, 200, { jsonrpc: '2.0', id: message.id ?? null, result: admitted.result });
          return;
        }
        // Path arguments go as the real paths that were checked (policy.paths).
        if (admitted.args !== callArgs) {
          body = Buffer.from(
            JSON.stringify({ ...message, params: { ...message.params, arguments: admitted.args } }),
          );
        }
        recheck = admitted.recheck;
        // The call holds one of its caller's call slots until its answer is relayed.
        const slot = await pipeline.callSlot(token);
        res.once('close', () => slot.release());
      } catch (error) {
        if (!(error instanceof JsonRpcFault)) throw error;
        reply(res, 200, { jsonrpc: '2.0', id: message.id ?? null, error: error.toError() });
        return;
      }
    }
  }
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  const started = performance.now();
  let response;
  // An upstream that acts as the caller gets the caller's credential (or the exchange refuses).
  let authorization: string | undefined;
  if (pipeline.credentials.carriesIdentity(server)) {
    try {
      authorization = await pipeline.credentials.authorization(server, token);
    } catch (error) {
      if (!(error instanceof JsonRpcFault)) throw error;
      reply(res, 200, { jsonrpc: '2.0', id: message?.id ?? null, error: error.toError() });
      return;
    }
  }
  const send = () =>
    upstream.relay({
      method: req.method ?? 'GET',
      headers,
      body,
      signal: controller.signal,
      ...(authorization ? { authorization } : {}),
    });
  try {
    try {
      response = await send();
    } catch (error) {
      // A keep-alive connection the upstream closed as we reused it: the message never arrived.
      // Resending is safe for what has no effect of its own (a response to the upstream's own
      // request, a notification, a GET); a request is left to the client to retry.
      const resendable =
        req.method !== 'POST' ||
        message === undefined ||
        typeof message.method !== 'string' ||
        message.id === undefined;
      if (!resendable || controller.signal.aborted || !isSocketReset(error)) throw error;
      response = await send();
    }
  } catch (error) {
    if (callName) {
      pipeline.record(callName, token, callArgs, started, 'error', String(error));
      await pipeline.afterRelayedCall(callName, server);
    }
    reply(res, 502, {
      jsonrpc: '2.0',
      id: message?.id ?? null,
      error: {
        code: -32050,
        message: `Upstream "${server}" is unreachable: ${error instanceof Error ? error.message : String(error)}`,
      },
    });
    return;
  }
  const out: Record<string, string> = {};
  for (const name of RETURNED_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  const listMethod = typeof message?.method === 'string' ? message.method : '';
  if (LIST_KEYS[listMethod] && response.statusCode === 200) {
    const raw = (await readAll(response.body)).toString('utf8');
    const filtered = filterList(raw, String(out['content-type'] ?? ''), (payload) =>
      filterMessage(payload, listMethod, server, pipeline, token),
    );
    res.writeHead(200, { ...out, 'content-length': Buffer.byteLength(filtered) });
    res.end(filtered);
    return;
  }
  if (recheck && callName) {
    // A call whose paths are checked again after it: its answer is held until they are.
    const raw = await readAll(response.body);
    const changed = await recheck();
    await pipeline.afterRelayedCall(callName, server);
    if (changed) {
      reply(res, 200, { jsonrpc: '2.0', id: message?.id ?? null, error: changed.toError() });
      return;
    }
    res.writeHead(response.statusCode, { ...out, 'content-length': raw.length });
    res.end(raw);
    pipeline.record(callName, token, callArgs, started, response.statusCode < 400 ? 'ok' : 'error');
    return;
  }
  res.writeHead(response.statusCode, out);
  if (typeof res.flushHeaders === 'function') res.flushHeaders();
  try {
    for await (const chunk of response.body) res.write(chunk);
    // Cached reads of this upstream go before the client learns its write is done.
    if (callName) await pipeline.afterRelayedCall(callName, server);
    res.end();
    if (callName)
      pipeline.record(
        callName,
        token,
        callArgs,
        started,
        response.statusCode < 400 ? 'ok' : 'error',
      );
  } catch (error) {
    if (callName) pipeline.record(callName, token, callArgs, started, 'error', String(error));
    res.destroy();
  }
}

function isSocketReset(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

/** The result key of each list the relay filters to what the caller may reach. */
const LIST_KEYS: Record<string, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
};

/**
 * The answer to a request for a prompt or the upstream's resources (read, subscribe, completion)
 * the token may not use: the one for a prompt or resource that does not exist (the rule goes to
 * the audit line). `undefined` when it may go ahead. Tool calls are admitted apart.
 */
function surfaceRefusal(
  message: Record<string, unknown>,
  server: string,
  pipeline: CallPipeline,
  token: AuthToken | undefined,
): JsonRpcFault | undefined {
  const params = isRecord(message.params) ? message.params : {};
  const prompt = (name: unknown): JsonRpcFault | undefined => {
    const refusal = pipeline.policy.checkPrompt(
      `${server}${pipeline.separator}${String(name)}`,
      token,
    );
    if (!refusal) return undefined;
    pipeline.recordRefusal(`prompt:${String(name)}`, server, { token }, refusal.message);
    return unknownPrompt(String(name));
  };
  const resource = (uri: unknown): JsonRpcFault | undefined => {
    const refusal = pipeline.policy.checkResources(server, token);
    if (!refusal) return undefined;
    pipeline.recordRefusal(`resource:${String(uri)}`, server, { token }, refusal.message);
    return resourceNotFound(String(uri));
  };
  switch (message.method) {
    case 'prompts/get':
      return prompt(params.name);
    case 'resources/read':
    case 'resources/subscribe':
    case 'resources/unsubscribe':
      return resource(params.uri);
    case 'completion/complete': {
      const ref = isRecord(params.ref) ? params.ref : {};
      if (ref.type === 'ref/prompt') return prompt(ref.name);
      return resource(ref.uri);
    }
    default:
      return undefined;
  }
}

function filterMessage(
  message: unknown,
  method: string,
  server: string,
  pipeline: CallPipeline,
  token: AuthToken | undefined,
): unknown {
  const key = LIST_KEYS[method]!;
  if (!isRecord(message) || !isRecord(message.result) || !Array.isArray(message.result[key]))
    return message;
  const named = (item: unknown): string | undefined =>
    isRecord(item) && typeof item.name === 'string' ? item.name : undefined;
  const resources = !pipeline.policy.checkResources(server, token);
  const keep = (item: unknown): boolean => {
    if (key === 'resources' || key === 'resourceTemplates') return resources;
    const name = named(item);
    if (name === undefined) return false;
    if (key === 'prompts')
      return !pipeline.policy.checkPrompt(`${server}${pipeline.separator}${name}`, token);
    const canonical = `${server}${pipeline.separator}${name}`;
    const entry = pipeline.byCanonicalName(canonical);
    // A tool held back by its pin is not listed here either.
    if (!entry && pipeline.index.isHeld(canonical)) return false;
    return entry ? !pipeline.refusal(entry, token) : !pipeline.policy.check(canonical, token);
  };
  return {
    ...message,
    result: { ...message.result, [key]: (message.result[key] as unknown[]).filter(keep) },
  };
}

function filterList(
  raw: string,
  contentType: string,
  filter: (message: unknown) => unknown,
): string {
  if (!contentType.startsWith('text/event-stream')) {
    return JSON.stringify(filter(JSON.parse(raw)));
  }
  return parseSseText(raw)
    .map((event) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        return formatSseEvent(event);
      }
      return formatSseEvent({ ...event, data: JSON.stringify(filter(parsed)) });
    })
    .join('');
}
