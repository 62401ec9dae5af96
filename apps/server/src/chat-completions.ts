import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentResult } from '@toolwire/agent';
import { toolCallArgumentsText, type ToolCall } from '@toolwire/schema';
import { parseClientTools, parseToolChoice } from './client-tools.js';
import { ConversationBuilder } from './conversation-builder.js';
import {
  gatewayAgent,
  gatewayToolNames,
  ownerOf,
  runOutcome,
  type ChatContext,
  type RunOutcome,
  type RunRequest,
} from './gateway-agent.js';
import { markLongLived, readJson, sendJson } from './http-util.js';
import { isRecord, openAiError, textOf, upstreamFailure } from './openai-error.js';
import { responseStore, type ResponseStore } from './response-store.js';
import type { Runtime } from './runtime.js';

export interface ParsedChatRequest extends RunRequest {
  stream: boolean;
  includeUsage: boolean;
}

/** A number field, or undefined; anything else is a 400 naming it. */
export function numberField(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw openAiError(400, `${path}: expected a number`, path, 'invalid_type');
  return value;
}

/** An assistant message's `tool_calls`, checked field by field. */
function toolCallsOf(raw: unknown, path: string): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw openAiError(400, `${path}: expected an array`, path, 'invalid_type');
  return raw.map((call: unknown, i) => {
    const at = `${path}[${i}]`;
    const fn = isRecord(call) ? call.function : undefined;
    if (
      !isRecord(call) ||
      typeof call.id !== 'string' ||
      !isRecord(fn) ||
      typeof fn.name !== 'string' ||
      (fn.arguments !== undefined && typeof fn.arguments !== 'string')
    )
      throw openAiError(
        400,
        `${at}: expected { id, type: "function", function: { name, arguments } }`,
        at,
        'invalid_type',
      );
    return { id: call.id, name: fn.name, arguments: (fn.arguments as string | undefined) ?? '{}' };
  });
}

/**
 * Reads a Chat Completions request: messages (with the client's tool calls and `tool` results),
 * the client's `tools` and `tool_choice`. An assistant message whose calls the gateway stopped at
 * gets back the calls the gateway ran itself on the way (kept under its first call's id).
 */
export async function parseChatRequest(
  body: unknown,
  options: { gatewayNames?: ReadonlySet<string>; store?: ResponseStore } = {},
): Promise<ParsedChatRequest> {
  if (!isRecord(body))
    throw openAiError(400, 'The body must be a JSON object', null, 'invalid_type');
  const clientTools = parseClientTools(body.tools, 'chat', options.gatewayNames ?? new Set());
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    throw openAiError(400, 'messages: expected a non-empty array', 'messages', 'invalid_type');
  }
  const systems: string[] = [];
  const conversation = new ConversationBuilder();
  for (const [i, raw] of (body.messages as unknown[]).entries()) {
    const path = `messages[${i}]`;
    if (!isRecord(raw)) throw openAiError(400, `${path}: expected an object`, path, 'invalid_type');
    switch (raw.role) {
      case 'system':
      case 'developer':
        systems.push(textOf(raw.content, `${path}.content`));
        break;
      case 'user':
        conversation.user(textOf(raw.content, `${path}.content`));
        break;
      case 'assistant': {
        const content = textOf(raw.content, `${path}.content`);
        const calls = toolCallsOf(raw.tool_calls, `${path}.tool_calls`);
        const kept = calls[0] ? await options.store?.loadExchange(calls[0].id) : undefined;
        if (kept) {
          conversation.restore(kept.before);
          conversation.assistant(kept.assistant, kept.serverResults);
        } else {
          conversation.assistant({
            role: 'assistant',
            content,
            ...(calls.length > 0 ? { toolCalls: calls } : {}),
          });
        }
        break;
      }
      case 'tool':
        if (typeof raw.tool_call_id !== 'string')
          throw openAiError(
            400,
            `${path}.tool_call_id: expected the id of the call it answers`,
            `${path}.tool_call_id`,
            'invalid_type',
          );
        conversation.result(raw.tool_call_id, textOf(raw.content, `${path}.content`), path);
        break;
      default:
        throw openAiError(
          400,
          `${path}.role: expected system, developer, user, assistant or tool`,
          `${path}.role`,
          'invalid_value',
        );
    }
  }
  if (body.model !== undefined && typeof body.model !== 'string') {
    throw openAiError(400, 'model: expected a string', 'model', 'invalid_type');
  }
  const names = new Set([...(options.gatewayNames ?? []), ...clientTools.map((t) => t.name)]);
  return {
    model: body.model as string | undefined,
    system: systems.length > 0 ? systems.join('\n\n') : undefined,
    messages: conversation.finish('messages'),
    clientTools,
    toolChoice: parseToolChoice(body.tool_choice, 'chat', names),
    stream: body.stream === true,
    includeUsage: isRecord(body.stream_options) && body.stream_options.include_usage === true,
    temperature: numberField(body.temperature, 'temperature'),
    maxOutputTokens: numberField(
      body.max_completion_tokens ?? body.max_tokens,
      'max_completion_tokens',
    ),
  };
}

function finishReason(result: AgentResult, outcome: RunOutcome): string {
  if (outcome.clientCalls.length > 0) return 'tool_calls';
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

/** The client's calls in OpenAI's shape. */
function openAiToolCalls(calls: readonly ToolCall[]) {
  return calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: toolCallArgumentsText(call) },
  }));
}

/** What tools ran, as an extension field beside the OpenAI shape. */
function toolwireSummary(result: AgentResult, outcome: RunOutcome) {
  return { steps: result.steps.length, toolCalls: outcome.toolCalls };
}

/**
 * `POST /v1/chat/completions`: the agent loop with the gateway's tools against the configured
 * model. When the model calls one of the client's tools, the answer is those calls
 * (`finish_reason: "tool_calls"`), and the calls the gateway made on the way are kept for when the
 * client sends the conversation back with its results.
 */
export async function handleChatCompletions(
  ctx: ChatContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req, ctx.maxBody);
  const store = responseStore(ctx.shared, ownerOf(ctx.token));
  const request = await parseChatRequest(body, {
    gatewayNames: gatewayToolNames(ctx.runtime, ctx.token),
    store,
  });
  const { model, agent, clientNames } = await gatewayAgent(ctx, request, res);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`;
  const created = Math.floor(Date.now() / 1000);
  const modelId = model.modelId;
  const keep = async (outcome: RunOutcome) => {
    if (outcome.exchange && outcome.clientCalls[0])
      await store.saveExchange(outcome.clientCalls[0].id, outcome.exchange);
  };

  if (!request.stream) {
    let result: AgentResult;
    try {
      result = await agent.run(request.messages, { signal: controller.signal });
    } catch (error) {
      throw upstreamFailure(error);
    }
    const outcome = runOutcome(result, request.messages.length, clientNames);
    await keep(outcome);
    const calls = outcome.clientCalls;
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: modelId,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: calls.length > 0 && outcome.text === '' ? null : outcome.text,
            refusal: null,
            ...(calls.length > 0 ? { tool_calls: openAiToolCalls(calls) } : {}),
          },
          finish_reason: finishReason(result, outcome),
          logprobs: null,
        },
      ],
      usage: usageOf(result),
      toolwire: toolwireSummary(result, outcome),
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
  let callIndex = 0;
  try {
    for await (const event of agent.stream(request.messages, { signal: controller.signal })) {
      if (event.type === 'text-delta' && event.delta !== '') {
        start();
        res.write(chunk({ content: event.delta }, null));
      } else if (event.type === 'tool-call' && clientNames.has(event.toolCall.name)) {
        // The client's call, whole, as the last delta of its index.
        start();
        const [call] = openAiToolCalls([event.toolCall]);
        res.write(chunk({ tool_calls: [{ index: callIndex++, ...call }] }, null));
      } else if (event.type === 'finish') {
        start();
        const outcome = runOutcome(event.result, request.messages.length, clientNames);
        await keep(outcome);
        res.write(
          chunk({}, finishReason(event.result, outcome), {
            toolwire: toolwireSummary(event.result, outcome),
          }),
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
