import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentResult } from '@toolwire/agent';
import type { Message, ToolResult } from '@toolwire/schema';
import { numberField } from './chat-completions.js';
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
import {
  responseStore,
  RESPONSE_TTL_MS,
  type ResponseStore,
  type StoredItem,
} from './response-store.js';
import { callIdOfMcpItem, outputItems, OutputStream } from './responses-output.js';

const TEXT_PARTS = ['input_text', 'output_text', 'text'];

interface ParsedResponsesRequest extends RunRequest {
  stream: boolean;
  /** `store: false` keeps nothing (the client sends the whole conversation each time). */
  store: boolean;
  previousResponseId: string | null;
  /** As the client sent them, echoed in the response object. */
  rawTools: unknown[];
  rawToolChoice: unknown;
}

const notKept = (what: string) =>
  `${what} (kept for ${RESPONSE_TTL_MS / 3_600_000} h, for the token that made it, and not with store: false)`;

/** Applies one kept output item where its `item_reference` stands in the input. */
function applyItem(conversation: ConversationBuilder, item: StoredItem): void {
  if (item.kind === 'text') conversation.assistantText(item.text);
  else if (item.kind === 'client-call') conversation.call(item.call);
  else conversation.call(item.call, item.result);
}

/** A function call's output: text, or text parts (`input_text`). */
function outputText(output: unknown, path: string): string {
  return textOf(output, path, TEXT_PARTS, false);
}

/** Input items into the conversation, in order (system and developer messages into `systems`). */
async function readInputItems(
  input: unknown[],
  conversation: ConversationBuilder,
  systems: string[],
  store: ResponseStore,
): Promise<void> {
  for (const [i, raw] of input.entries()) {
    const path = `input[${i}]`;
    if (!isRecord(raw)) throw openAiError(400, `${path}: expected an object`, path, 'invalid_type');
    const type = raw.type ?? 'message';
    const need = (field: string) => {
      if (typeof raw[field] !== 'string')
        throw openAiError(
          400,
          `${path}.${field}: expected a string`,
          `${path}.${field}`,
          'invalid_type',
        );
      return raw[field] as string;
    };
    switch (type) {
      case 'message': {
        const text = textOf(raw.content, `${path}.content`, TEXT_PARTS, false);
        if (raw.role === 'system' || raw.role === 'developer') systems.push(text);
        else if (raw.role === 'user') conversation.user(text);
        else if (raw.role === 'assistant') conversation.assistantText(text);
        else
          throw openAiError(
            400,
            `${path}.role: expected system, developer, user or assistant`,
            `${path}.role`,
            'invalid_value',
          );
        break;
      }
      case 'function_call':
        conversation.call({
          id: need('call_id'),
          name: need('name'),
          arguments: typeof raw.arguments === 'string' ? raw.arguments : '{}',
        });
        break;
      case 'function_call_output':
        conversation.result(need('call_id'), outputText(raw.output, `${path}.output`), path);
        break;
      case 'mcp_call': {
        const id = callIdOfMcpItem(need('id'));
        const failed = typeof raw.error === 'string' && raw.error !== '';
        const text = failed
          ? (raw.error as string)
          : typeof raw.output === 'string'
            ? raw.output
            : '';
        const result: ToolResult = {
          toolCallId: id,
          toolName: need('name'),
          content: [{ type: 'text', text }],
          isError: failed,
        };
        conversation.call(
          {
            id,
            name: need('name'),
            arguments: typeof raw.arguments === 'string' ? raw.arguments : '{}',
          },
          result,
        );
        break;
      }
      case 'item_reference': {
        const item = await store.loadItem(need('id'));
        if (!item)
          throw openAiError(
            400,
            `${path}.id: no item "${String(raw.id)}" here ${notKept('an item is')}`,
            `${path}.id`,
            'item_not_found',
          );
        applyItem(conversation, item);
        break;
      }
      case 'reasoning':
        // The gateway's answers carry none; a client's own is not the upstream model's to read.
        break;
      default:
        throw openAiError(
          400,
          `${path}.type: "${String(type)}" items are not accepted here (messages, function_call, function_call_output, mcp_call and item_reference are)`,
          `${path}.type`,
          'unsupported_parameter',
        );
    }
  }
}

/**
 * Reads a Responses request: `input` (a string, or items: messages, the client's function calls
 * and their outputs, the gateway's `mcp_call` items sent back, `item_reference`s), `instructions`,
 * `previous_response_id` (the conversation of a response this gateway kept), the client's `tools`
 * and `tool_choice`, `store`, `stream`, `temperature`, `max_output_tokens`.
 */
async function parseResponsesRequest(
  body: unknown,
  gatewayNames: ReadonlySet<string>,
  store: ResponseStore,
): Promise<ParsedResponsesRequest> {
  if (!isRecord(body))
    throw openAiError(400, 'The body must be a JSON object', null, 'invalid_type');
  const clientTools = parseClientTools(body.tools, 'responses', gatewayNames);
  const systems: string[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string')
      throw openAiError(400, 'instructions: expected a string', 'instructions', 'invalid_type');
    systems.push(body.instructions);
  }
  let previousResponseId: string | null = null;
  let prefix: Message[] = [];
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    if (typeof body.previous_response_id !== 'string')
      throw openAiError(
        400,
        'previous_response_id: expected a string',
        'previous_response_id',
        'invalid_type',
      );
    previousResponseId = body.previous_response_id;
    const kept = await store.loadResponse(previousResponseId);
    if (!kept)
      throw openAiError(
        400,
        `previous_response_id: no response "${previousResponseId}" here ${notKept('a response is')}`,
        'previous_response_id',
        'previous_response_not_found',
      );
    prefix = kept;
  }
  const conversation = new ConversationBuilder(prefix);
  if (typeof body.input === 'string') {
    conversation.user(body.input);
  } else if (Array.isArray(body.input) && body.input.length > 0) {
    await readInputItems(body.input, conversation, systems, store);
  } else {
    throw openAiError(
      400,
      'input: expected a string or a non-empty array of items',
      'input',
      'invalid_type',
    );
  }
  if (body.model !== undefined && typeof body.model !== 'string')
    throw openAiError(400, 'model: expected a string', 'model', 'invalid_type');
  const names = new Set([...gatewayNames, ...clientTools.map((t) => t.name)]);
  return {
    model: body.model as string | undefined,
    system: systems.length > 0 ? systems.join('\n\n') : undefined,
    messages: conversation.finish('input'),
    clientTools,
    toolChoice: parseToolChoice(body.tool_choice, 'responses', names),
    stream: body.stream === true,
    store: body.store !== false,
    previousResponseId,
    rawTools: Array.isArray(body.tools) ? body.tools : [],
    rawToolChoice: body.tool_choice ?? 'auto',
    temperature: numberField(body.temperature, 'temperature'),
    maxOutputTokens: numberField(body.max_output_tokens, 'max_output_tokens'),
  };
}

function usageOf(result: AgentResult) {
  return {
    input_tokens: result.usage.inputTokens,
    input_tokens_details: { cached_tokens: result.usage.cachedInputTokens ?? 0 },
    output_tokens: result.usage.outputTokens,
    output_tokens_details: { reasoning_tokens: result.usage.reasoningTokens ?? 0 },
    total_tokens: result.usage.totalTokens,
  };
}

/** `status` and `incomplete_details` of a finished run. */
function statusOf(result: AgentResult) {
  if (result.finishReason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (result.finishReason === 'content-filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/**
 * `POST /v1/responses`: the same tool loop as `/v1/chat/completions`, spoken as OpenAI's Responses
 * API (a `response` object, or its SSE events when `stream` is true). Unless `store` is false, the
 * response's conversation and items are kept for `previous_response_id` and `item_reference`.
 */
export async function handleResponses(
  ctx: ChatContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req, ctx.maxBody);
  const store = responseStore(ctx.shared, ownerOf(ctx.token));
  const request = await parseResponsesRequest(
    body,
    gatewayToolNames(ctx.runtime, ctx.token),
    store,
  );
  const { model, agent, clientNames } = await gatewayAgent(ctx, request, res);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  const id = `resp_${randomUUID().replaceAll('-', '')}`;
  const createdAt = Math.floor(Date.now() / 1000);
  const envelope = (extra: Record<string, unknown>) => ({
    id,
    object: 'response',
    created_at: createdAt,
    model: model.modelId,
    error: null,
    instructions: request.system ?? null,
    max_output_tokens: request.maxOutputTokens ?? null,
    parallel_tool_calls: true,
    previous_response_id: request.previousResponseId,
    temperature: request.temperature ?? null,
    tool_choice: request.rawToolChoice,
    tools: request.rawTools,
    store: request.store,
    ...extra,
  });
  const finished = async (result: AgentResult) => {
    const outcome: RunOutcome = runOutcome(result, request.messages.length, clientNames);
    const { items, kept } = outputItems(result, id, clientNames);
    if (request.store) {
      await store.saveResponse(id, outcome.conversation);
      await store.saveItems(kept);
    }
    return envelope({
      ...statusOf(result),
      output: items,
      usage: usageOf(result),
      toolwire: { steps: result.steps.length, toolCalls: outcome.toolCalls },
    });
  };

  if (!request.stream) {
    let result: AgentResult;
    try {
      result = await agent.run(request.messages, { signal: controller.signal });
    } catch (error) {
      throw upstreamFailure(error);
    }
    sendJson(res, 200, await finished(result));
    return;
  }

  markLongLived(res);
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  const output = new OutputStream(send, id, clientNames);
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const pending = envelope({
      status: 'in_progress',
      incomplete_details: null,
      output: [],
      usage: null,
    });
    send('response.created', { response: pending });
    send('response.in_progress', { response: pending });
  };
  try {
    for await (const event of agent.stream(request.messages, { signal: controller.signal })) {
      if (event.type === 'step-start') start();
      else if (event.type === 'text-delta' && event.delta !== '') {
        start();
        output.text(event.step, event.delta);
      } else if (event.type === 'tool-call') output.toolCall(event.toolCall);
      else if (event.type === 'tool-result') output.toolResult(event.result);
      else if (event.type === 'step-finish') output.endTurn();
      else if (event.type === 'finish') {
        start();
        output.endTurn();
        const response = await finished(event.result);
        const done = statusOf(event.result).status === 'completed';
        send(done ? 'response.completed' : 'response.incomplete', { response });
        res.end();
      }
    }
  } catch (error) {
    if (!started) throw upstreamFailure(error);
    // Headers are gone: the failure is reported in-stream, as the Responses API does.
    const reason = (error as Error).message;
    ctx.logger.warn('response failed mid-stream', { error: reason });
    send('response.failed', {
      response: envelope({
        status: 'failed',
        error: { code: 'server_error', message: `The upstream model failed: ${reason}` },
        incomplete_details: null,
        output: [],
        usage: null,
      }),
    });
    res.end();
  }
}
