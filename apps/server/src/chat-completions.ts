import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentResult } from '@toolwire/agent';
import { codeModeLimits, resolveCodeModeSettings } from '@toolwire/codemode/settings';
import { JsonRpcFault, toolErrorOf, type AuthToken } from '@toolwire/forwarder';
import { toToolResult } from '@toolwire/mcp';
import { toolContent, type AnyTool, type Message } from '@toolwire/schema';
import { gatewayToolSource, visibleTools } from './gateway-tool-source.js';
import { HttpError, markLongLived, readJson, sendJson } from './http-util.js';
import type { Logger } from './logger.js';
import type { SharedState } from './shared-state.js';
import type { Runtime } from './runtime.js';

export interface ChatContext {
  runtime: Runtime;
  token: AuthToken | undefined;
  shared: SharedState;
  logger: Logger;
  maxBody: number;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** OpenAI-style error body (what OpenAI SDKs parse). */
export function openAiError(
  status: number,
  message: string,
  param: string | null,
  code: string,
): HttpError {
  return new HttpError(status, message, -32602, {}, { type: 'invalid_request_error', param, code });
}

/** The gateway's tools for the model: every call goes through the forwarder's policy pipeline. */
function gatewayTools(runtime: Runtime, token: AuthToken | undefined): AnyTool[] {
  return visibleTools(runtime, token).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    execute: async (args: unknown, context: { signal: AbortSignal; toolCallId: string }) => {
      let result;
      try {
        result = await runtime.forwarder.callTool(tool.name, args, {
          token,
          signal: context.signal,
        });
      } catch (error) {
        throw error instanceof JsonRpcFault ? toolErrorOf(error) : error;
      }
      const converted = toToolResult(
        { id: context.toolCallId, name: tool.name },
        result as Parameters<typeof toToolResult>[1],
      );
      return toolContent(converted.content, {
        isError: converted.isError,
        ...(converted.structuredContent !== undefined
          ? { structuredContent: converted.structuredContent }
          : {}),
      });
    },
  })) as AnyTool[];
}

export interface ParsedRequest {
  model: string | undefined;
  system: string | undefined;
  messages: Message[];
  stream: boolean;
  includeUsage: boolean;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
}

/**
 * The text of an OpenAI message `content`: a string, or text parts of the given types joined by
 * newlines. Chat Completions allows a missing content (`null`); the Responses API does not.
 */
export function textOf(
  content: unknown,
  path: string,
  partTypes: readonly string[] = ['text'],
  allowMissing = true,
): string {
  if (typeof content === 'string') return content;
  if (allowMissing && (content === null || content === undefined)) return '';
  if (Array.isArray(content)) {
    return content
      .map((part, i) => {
        if (
          isRecord(part) &&
          partTypes.includes(String(part.type)) &&
          typeof part.text === 'string'
        )
          return part.text;
        throw openAiError(
          400,
          `${path}[${i}]: only ${partTypes.join(', ')} parts are supported`,
          `${path}[${i}]`,
          'unsupported_content',
        );
      })
      .join('\n');
  }
  throw openAiError(
    400,
    `${path}: expected a string or an array of text parts`,
    path,
    'invalid_type',
  );
}

export function parseChatRequest(body: unknown): ParsedRequest {
  if (!isRecord(body))
    throw openAiError(400, 'The body must be a JSON object', null, 'invalid_type');
  if (body.tools !== undefined && !(Array.isArray(body.tools) && body.tools.length === 0)) {
    throw openAiError(
      400,
      "tools: this endpoint runs the gateway's own tools server-side; client-defined tools are not accepted",
      'tools',
      'unsupported_parameter',
    );
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw openAiError(400, 'messages: expected a non-empty array', 'messages', 'invalid_type');
  }
  const systems: string[] = [];
  const messages: Message[] = [];
  body.messages.forEach((raw: unknown, i) => {
    const path = `messages[${i}]`;
    if (!isRecord(raw)) throw openAiError(400, `${path}: expected an object`, path, 'invalid_type');
    switch (raw.role) {
      case 'system':
      case 'developer':
        systems.push(textOf(raw.content, `${path}.content`));
        break;
      case 'user':
        messages.push({ role: 'user', content: textOf(raw.content, `${path}.content`) });
        break;
      case 'assistant':
        if (Array.isArray(raw.tool_calls) && raw.tool_calls.length > 0) {
          throw openAiError(
            400,
            `${path}.tool_calls: the gateway runs tools itself; send the conversation without tool calls`,
            `${path}.tool_calls`,
            'unsupported_parameter',
          );
        }
        messages.push({ role: 'assistant', content: textOf(raw.content, `${path}.content`) });
        break;
      case 'tool':
        throw openAiError(
          400,
          `${path}: role "tool" is not accepted: the gateway runs tools itself`,
          `${path}.role`,
          'unsupported_parameter',
        );
      default:
        throw openAiError(
          400,
          `${path}.role: expected system, developer, user or assistant`,
          `${path}.role`,
          'invalid_value',
        );
    }
  });
  const number = (value: unknown, path: string): number | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw openAiError(400, `${path}: expected a number`, path, 'invalid_type');
    }
    return value;
  };
  if (body.model !== undefined && typeof body.model !== 'string') {
    throw openAiError(400, 'model: expected a string', 'model', 'invalid_type');
  }
  return {
    model: body.model as string | undefined,
    system: systems.length > 0 ? systems.join('\n\n') : undefined,
    messages,
    stream: body.stream === true,
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
    temperature: number(body.temperature, 'temperature'),
    maxOutputTokens: number(body.max_completion_tokens ?? body.max_tokens, 'max_completion_tokens'),
  };
}

function finishReason(result: AgentResult): string {
  if (result.finishReason === 'length') return 'length';
  if (result.finishReason === 'content-filter') return 'content_filter';
  return 'stop';
}

function usageOf(result: AgentResult) {
  return {
    prompt_tokens: result.usage.inputTokens,
    completion_tokens: result.usage.outputTokens,
    total_tokens: result.usage.totalTokens,
  };
}

/** What tools ran, as an extension field beside the OpenAI shape. */
export function toolwireSummary(result: AgentResult) {
  const calls: Array<{ name: string; isError: boolean }> = [];
  for (const message of result.messages) {
    if (message.role !== 'tool') continue;
    for (const r of message.results) calls.push({ name: r.toolName, isError: r.isError });
  }
  return { steps: result.steps.length, toolCalls: calls };
}

/**
 * The configured upstream model and an agent over the gateway's tools (code mode's when it is
 * on), as `/v1/chat/completions` and `/v1/responses` both run it. The agent, the provider SDKs
 * and code mode (the TypeScript checker, the sandbox) are imported at the first chat request, so
 * a gateway that only forwards MCP never loads them (it idles in less memory).
 */
export async function gatewayAgent(
  ctx: ChatContext,
  request: Pick<ParsedRequest, 'model' | 'system' | 'temperature' | 'maxOutputTokens'>,
  res: ServerResponse,
) {
  const { runtime, token } = ctx;
  const [{ chatModelFromConfig }, { createAgent }] = await Promise.all([
    import('./chat-model.js'),
    import('@toolwire/agent'),
  ]);
  const model = chatModelFromConfig(runtime.config, request.model);
  // codeMode.defaults and codeMode.models[].match decide per model whether it gets execute_code.
  const codeSettings = resolveCodeModeSettings(runtime.config.codeMode, model.modelId);
  const codeModeTools = codeSettings.enabled
    ? (await import('@toolwire/codemode')).createCodeModeTools({
        source: gatewayToolSource(runtime, token),
        ...(token ? { owner: token.client } : {}),
        excludedTools: codeSettings.excludedTools,
        pinnedTools: codeSettings.pinnedTools,
        typecheck: 'warn',
        limits: codeModeLimits(runtime.config.codeMode?.limits),
      })
    : undefined;
  // Release the code mode (its source listener, its share of the executor) with the response.
  res.once('close', () => {
    codeModeTools?.close().catch((error: unknown) => {
      ctx.logger.warn('closing code mode failed', { error: String(error) });
    });
  });
  const tools = codeModeTools ?? gatewayTools(runtime, token);
  const agent = createAgent({
    model,
    tools,
    // An upstream model without tool calling gets the tools in its prompt instead of failing.
    toolCalling: 'auto',
    ...(request.system !== undefined ? { system: request.system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  });
  return { model, agent };
}

/** `POST /v1/chat/completions`: the agent loop with the gateway's tools against the configured model. */
export async function handleChatCompletions(
  ctx: ChatContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req, ctx.maxBody);
  const request = parseChatRequest(body);
  const { model, agent } = await gatewayAgent(ctx, request, res);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  const modelId = model.modelId;

  if (!request.stream) {
    let result: AgentResult;
    try {
      result = await agent.run(request.messages, { signal: controller.signal });
    } catch (error) {
      throw upstreamFailure(error);
    }
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: modelId,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: result.text, refusal: null },
          finish_reason: finishReason(result),
          logprobs: null,
        },
      ],
      usage: usageOf(result),
      toolwire: toolwireSummary(result),
    });
    return;
  }

  markLongLived(res);
  const chunk = (
    delta: Record<string, unknown>,
    finish: string | null,
    extra: Record<string, unknown> = {},
  ) =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model: modelId,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...extra,
    })}\n\n`;
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    res.write(chunk({ role: 'assistant', content: '' }, null));
  };
  try {
    for await (const event of agent.stream(request.messages, { signal: controller.signal })) {
      if (event.type === 'text-delta' && event.delta !== '') {
        start();
        res.write(chunk({ content: event.delta }, null));
      } else if (event.type === 'finish') {
        start();
        res.write(
          chunk({}, finishReason(event.result), { toolwire: toolwireSummary(event.result) }),
        );
        if (request.includeUsage) {
          res.write(
            `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: modelId, choices: [], usage: usageOf(event.result) })}\n\n`,
          );
        }
        res.end('data: [DONE]\n\n');
      } else if (event.type === 'step-start') {
        start();
      }
    }
  } catch (error) {
    if (!started) throw upstreamFailure(error);
    // Headers are gone: the failure is reported in-stream, the way OpenAI does.
    ctx.logger.warn('chat completion failed mid-stream', { error: (error as Error).message });
    res.end(
      `data: ${JSON.stringify({ error: { message: (error as Error).message, type: 'server_error' } })}\n\n`,
    );
  }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  405: 'invalid_request_error',
  413: 'invalid_request_error',
  429: 'rate_limit_error',
};

/**
 * Errors of the OpenAI-compatible endpoints in OpenAI's shape,
 * `{ "error": { "message", "type", "param", "code" } }`, which OpenAI SDKs parse.
 */
export function sendOpenAiError(res: ServerResponse, error: unknown): void {
  const status = error instanceof HttpError ? error.status : 500;
  const data = error instanceof HttpError && isRecord(error.data) ? error.data : {};
  const message =
    error instanceof HttpError
      ? error.message
      : `Internal error: ${error instanceof Error ? error.message : String(error)}`;
  sendJson(
    res,
    status,
    {
      error: {
        message,
        type:
          typeof data.type === 'string'
            ? data.type
            : (ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error')),
        param: typeof data.param === 'string' ? data.param : null,
        code: typeof data.code === 'string' ? data.code : null,
      },
    },
    error instanceof HttpError ? error.headers : {},
  );
}

/** A failure of the upstream model: 502, with its message. */
export function upstreamFailure(error: unknown): HttpError {
  const message = error instanceof Error ? error.message : String(error);
  return new HttpError(
    502,
    `The upstream model failed: ${message}`,
    -32603,
    {},
    {
      type: 'upstream_error',
    },
  );
}

/** `GET /v1/models`: the configured model, so OpenAI clients that list models find it. */
export function handleModels(runtime: Runtime, res: ServerResponse): void {
  const model = runtime.config.chat?.model;
  sendJson(res, 200, {
    object: 'list',
    data: model
      ? [
          {
            id: model,
            object: 'model',
            created: 0,
            owned_by: runtime.config.chat?.provider ?? 'toolwire',
          },
        ]
      : [],
  });
}
