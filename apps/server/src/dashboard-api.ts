import type { IncomingMessage, ServerResponse } from 'node:http';
import { codeModeLimits, resolveCodeModeSettings } from '@toolwire/codemode/settings';
import { isKnownProtocol, JsonRpcFault, type AuthToken } from '@toolwire/forwarder';
import type { CallLog } from './call-log.js';
import { codeModeWarmth, warmUpCodeMode } from './code-mode-warm-up.js';
import type { Logger } from './logger.js';
import { HttpError, readJson, sendJson } from './http-util.js';
import type { SharedState } from './shared-state.js';
import { loadCodeMode, sandboxRefusal } from './code-mode-loader.js';
import { gatewayToolSource, visibleTools } from './gateway-tool-source.js';
import { requireGrant } from './grants.js';
import { handlePinsApi } from './pins-api.js';
import type { Runtime } from './runtime.js';

export interface DashboardApiContext {
  runtime: Runtime;
  token: AuthToken | undefined;
  shared: SharedState;
  callLog: CallLog;
  maxBody: number;
  startedAt: number;
  logger: Logger;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Upstreams this token reaches, as `/readyz` and the dashboard show them. The status reason can
 * quote the upstream's stderr (where a failing server may print secrets): only a token granted
 * `"*"` sees it.
 */
export function visibleServers(runtime: Runtime, token: AuthToken | undefined) {
  const scope = runtime.forwarder.pipeline.scope(token);
  return runtime.registry
    .servers()
    .map((s) => runtime.forwarder.pipeline.withLiveHealth(s))
    .filter((s) => scope.all || scope.servers.has(s.name))
    .map((s) => ({
      name: s.name,
      status: s.status,
      ...(s.reason && scope.all ? { reason: s.reason } : {}),
      tools: s.tools,
      transport: s.transport,
      ...(s.protocolVersion
        ? { protocolVersion: s.protocolVersion, protocolKnown: isKnownProtocol(s.protocolVersion) }
        : {}),
      restarts: s.restarts,
    }));
}

function faultBody(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof JsonRpcFault) return error.toError();
  return { code: -32603, message: error instanceof Error ? error.message : String(error) };
}

/** `/api/*`: the JSON the dashboard page reads. Auth was checked by the caller. */
export async function handleDashboardApi(
  ctx: DashboardApiContext,
  path: string,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const { runtime, token } = ctx;
  const pipeline = runtime.forwarder.pipeline;
  const mayCall = (tool: string): boolean => {
    const entry = pipeline.tools().get(tool);
    return (entry ? pipeline.refusal(entry, token) : pipeline.policy.check(tool, token)) === null;
  };
  const ownCall = (client: string): boolean => token === undefined || client === token.client;

  if (path === '/api/overview' && req.method === 'GET') {
    // Someone has the dashboard open: its playground's first run should not wait for the sandbox.
    if (codeModeWarmth() === 'cold') void warmUpCodeMode(ctx.logger, 'the dashboard is open');
    sendJson(res, 200, {
      gateway: {
        version: '0.1.0',
        uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
        client: token?.client ?? null,
        auth: runtime.forwarder.auth.required,
        // Granted "*": sees the tool pins panel and may approve.
        admin: pipeline.policy.grantsEverything(token),
        redis: ctx.shared.kind === 'redis',
        codeMode: resolveCodeModeSettings(runtime.config.codeMode, runtime.config.chat?.model)
          .enabled,
        chatModel: runtime.config.chat?.model ?? null,
        sandbox: codeModeWarmth(),
      },
      servers: visibleServers(runtime, token),
      tools: visibleTools(runtime, token),
      metrics: pipeline.policy.grantsEverything(token)
        ? { ...ctx.callLog.totals, ...ctx.callLog.percentiles() }
        : ctx.callLog.summary((call) => ownCall(call.client) && mayCall(call.tool)),
    });
    return;
  }
  if (path === '/api/calls' && req.method === 'GET') {
    const after = Number(url.searchParams.get('after') ?? '0');
    if (!Number.isFinite(after) || after < 0)
      throw new HttpError(400, 'after: expected a non-negative number');
    const calls = ctx.callLog.after(after, mayCall).filter((call) => ownCall(call.client));
    // Calls still going after a second, with their latest progress: the log shows them running.
    const running = pipeline
      .runningCalls()
      .filter((call) => ownCall(call.client) && mayCall(call.tool));
    sendJson(res, 200, { calls, running });
    return;
  }
  if (path === '/api/call' && req.method === 'POST') {
    const body = await readJson(req, ctx.maxBody);
    if (!isRecord(body) || typeof body.name !== 'string' || body.name === '') {
      throw new HttpError(400, 'name: expected the tool name', -32602);
    }
    if (body.arguments !== undefined && !isRecord(body.arguments)) {
      throw new HttpError(400, 'arguments: expected an object', -32602);
    }
    // The page cancels a call by dropping the request; the call upstream is cancelled with it.
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    // `stream: true`: newline-delimited JSON, `{ progress }` lines as the tool reports them, then
    // `{ done }` with what the plain form answers.
    const stream = body.stream === true;
    if (stream) {
      res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
      res.flushHeaders();
    }
    let answer: { ok: true; result: unknown } | { ok: false; error: ReturnType<typeof faultBody> };
    try {
      const result = await runtime.forwarder.callTool(body.name, body.arguments ?? {}, {
        token,
        signal: controller.signal,
        ...(stream
          ? {
              meta: { progressToken: 'dashboard' },
              onProgress: (progress) => void res.write(`${JSON.stringify({ progress })}\n`),
            }
          : {}),
      });
      answer = { ok: true, result };
    } catch (error) {
      answer = { ok: false, error: faultBody(error) };
    }
    if (stream) res.end(`${JSON.stringify({ done: answer })}\n`);
    else sendJson(res, 200, answer);
    return;
  }
  if (path === '/api/declarations' && req.method === 'GET') {
    requireGrant(runtime, token, 'execute_code');
    // Code mode (the TypeScript checker, the sandbox) loads at its first use, not at start.
    const { generateDeclarations } = await loadCodeMode(runtime.config);
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(generateDeclarations(visibleTools(runtime, token)).text);
    return;
  }
  if (path === '/api/code' && req.method === 'POST') {
    // Refused before the body is read or the sandbox is loaded.
    requireGrant(runtime, token, 'execute_code');
    const body = await readJson(req, ctx.maxBody);
    if (!isRecord(body) || typeof body.code !== 'string' || body.code.trim() === '') {
      throw new HttpError(400, 'code: expected TypeScript source', -32602);
    }
    // As `toolwire code run`: code that fails the type check is reported, not run.
    const typecheck =
      body.typecheck === 'off' || body.typecheck === 'warn' ? body.typecheck : 'error';
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableEnded) controller.abort();
    });
    const { runCode } = await loadCodeMode(runtime.config);
    const result = await runCode(body.code, {
      source: gatewayToolSource(runtime, token),
      ...(token ? { owner: token.client } : {}),
      typecheck,
      limits: codeModeLimits(runtime.config.codeMode?.limits),
      signal: controller.signal,
    }).catch((error: unknown) => {
      throw sandboxRefusal(error) ?? error;
    });
    sendJson(res, 200, result);
    return;
  }
  if (path === '/api/pins' || path.startsWith('/api/pins/'))
    return handlePinsApi(runtime, token, path, req, res, ctx.maxBody);
  throw new HttpError(404, `Not found: ${path}`);
}
