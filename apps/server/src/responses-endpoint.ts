import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentResult } from '@toolwire/agent';
import type { Message } from '@toolwire/schema';
import {
  gatewayAgent,
  isRecord,
  openAiError,
  textOf,
  toolwireSummary,
  upstreamFailure,
  type ChatContext,
  type ParsedRequest,
} from './chat-completions.js';
import { markLongLived, readJson, sendJson } from './http-util.js';

const TEXT_PARTS = ['input_text', 'output_text', 'text'];

/**
 * Reads a Responses request: `input` (a string, or message items), `instructions`, `model`,
 * `stream`, `temperature`, `max_output_tokens`. Client tools, tool items and
 * `previous_response_id` are refused: the gateway runs its own tools and keeps no responses.
 */
function parseResponsesRequest(body: unknown): ParsedRequest {
  if (!isRecord(body))
    throw openAiError(400, 'The body must be a JSON object', null, 'invalid_type');
  if (body.tools !== undefined && !(Array.isArray(body.tools) && body.tools.length === 0))
    throw openAiError(
      400,
      "tools: this endpoint runs the gateway's own tools server-side; client-defined tools are not accepted",
      'tools',
      'unsupported_parameter',
    );
  if (body.previous_response_id !== undefined && body.previous_response_id !== null)
    throw openAiError(
      400,
      'previous_response_id: the gateway keeps no responses; send the whole conversation in input',
      'previous_response_id',
      'unsupported_parameter',
    );
  const systems: string[] = [];
  if (body.instructions !== undefined && body.instructions !== null) {
    if (typeof body.instructions !== 'string')
      throw openAiError(400, 'instructions: expected a string', 'instructions', 'invalid_type');
    systems.push(body.instructions);
  }
  const messages: Message[] = [];
  if (typeof body.input === 'string') {
    messages.push({ role: 'user', content: body.input });
  } else if (Array.isArray(body.input) && body.input.length > 0) {
    body.input.forEach((raw: unknown, i) => {
      const path = `input[${i}]`;
      if (!isRecord(raw))
        throw openAiError(400, `${path}: expected an object`, path, 'invalid_type');
      if (raw.type !== undefined && raw.type !== 'message')
        throw openAiError(
          400,
          `${path}.type: "${String(raw.type)}" items are not accepted: the gateway runs tools itself; send messages only`,
          `${path}.type`,
          'unsupported_parameter',
        );
      const text = textOf(raw.content, `${path}.content`, TEXT_PARTS, false);
      switch (raw.role) {
        case 'system':
        case 'developer':
          systems.push(text);
          break;
        case 'user':
        case 'assistant':
          messages.push({ role: raw.role, content: text });
          break;
        default:
          throw openAiError(
            400,
            `${path}.role: expected system, developer, user or assistant`,
            `${path}.role`,
            'invalid_value',
          );
      }
    });
  } else {
    throw openAiError(
      400,
      'input: expected a string or a non-empty array of messages',
      'input',
      'invalid_type',
    );
  }
  const number = (value: unknown, path: string): number | undefined => {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw openAiError(400, `${path}: expected a number`, path, 'invalid_type');
    return value;
  };
  if (body.model !== undefined && typeof body.model !== 'string')
    throw openAiError(400, 'model: expected a string', 'model', 'invalid_type');
  return {
    model: body.model as string | undefined,
    system: systems.length > 0 ? systems.join('\n\n') : undefined,
    messages,
    stream: body.stream === true,
    includeUsage: true,
    temperature: number(body.temperature, 'temperature'),
    maxOutputTokens: number(body.max_output_tokens, 'max_output_tokens'),
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
 * `POST /v1/responses`: the same server-side tool loop as `/v1/chat/completions`, spoken as
 * OpenAI's Responses API (a `response` object, or its SSE events when `stream` is true).
 */
export async function handleResponses(
  ctx: ChatContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const body = await readJson(req, ctx.maxBody);
  const request = parseResponsesRequest(body);
  const { model, agent } = await gatewayAgent(ctx, request, res);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableEnded) controller.abort();
  });
  const id = `resp_${randomUUID().replaceAll('-', '')}`;
  const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
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
    temperature: request.temperature ?? null,
    tool_choice: 'auto',
    tools: [],
    store: false,
    ...extra,
  });
  const message = (text: string, status: string) => ({
    id: messageId,
    type: 'message',
    status,
    role: 'assistant',
    content:
      text === '' && status === 'in_progress'
        ? []
        : [{ type: 'output_text', text, annotations: [] }],
  });
  const finished = (result: AgentResult) =>
    envelope({
      ...statusOf(result),
      output: [message(result.text, 'completed')],
      usage: usageOf(result),
      toolwire: toolwireSummary(result),
    });

  if (!request.stream) {
    let result: AgentResult;
    try {
      result = await agent.run(request.messages, { signal: controller.signal });
    } catch (error) {
      throw upstreamFailure(error);
    }
    sendJson(res, 200, finished(result));
    return;
  }

  markLongLived(res);
  let sequence = 0;
  const send = (type: string, data: Record<string, unknown>) =>
    res.write(
      `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`,
    );
  const position = { item_id: messageId, output_index: 0, content_index: 0 };
  let started = false;
  let text = '';
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
    send('response.output_item.added', { output_index: 0, item: message('', 'in_progress') });
    send('response.content_part.added', {
      ...position,
      part: { type: 'output_text', text: '', annotations: [] },
    });
  };
  try {
    for await (const event of agent.stream(request.messages, { signal: controller.signal })) {
      if (event.type === 'text-delta' && event.delta !== '') {
        start();
        text += event.delta;
        send('response.output_text.delta', { ...position, delta: event.delta, logprobs: [] });
      } else if (event.type === 'step-start') {
        start();
      } else if (event.type === 'finish') {
        start();
        const result = event.result;
        send('response.output_text.done', { ...position, text: result.text, logprobs: [] });
        send('response.content_part.done', {
          ...position,
          part: { type: 'output_text', text: result.text, annotations: [] },
        });
        send('response.output_item.done', {
          output_index: 0,
          item: message(result.text, 'completed'),
        });
        send(
          statusOf(result).status === 'completed' ? 'response.completed' : 'response.incomplete',
          { response: finished(result) },
        );
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
        output: text === '' ? [] : [message(text, 'incomplete')],
        usage: null,
      }),
    });
    res.end();
  }
}
