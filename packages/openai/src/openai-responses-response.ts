import {
  generateToolCallId,
  providerErrorFromStatus,
  type ProviderError,
  type FinishReason,
  type ProviderToolCall,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import type { OpenAIResponseParts } from './openai-response.js';
import { RESPONSES_METADATA_KEY } from './openai-responses-convert-messages.js';
import type {
  ResponsesWireItem,
  ResponsesWireResponse,
  ResponsesWireUsage,
} from './openai-wire.js';

export function mapOpenAIResponsesUsage(usage: ResponsesWireUsage | null | undefined): Usage {
  const input = usage?.input_tokens ?? 0;
  const output = usage?.output_tokens ?? 0;
  const out: Usage = {
    inputTokens: input,
    outputTokens: output,
    totalTokens: usage?.total_tokens ?? input + output,
  };
  const cached = usage?.input_tokens_details?.cached_tokens;
  const reasoning = usage?.output_tokens_details?.reasoning_tokens;
  if (typeof cached === 'number') out.cachedInputTokens = cached;
  if (typeof reasoning === 'number') out.reasoningTokens = reasoning;
  return out;
}

/** The finish reason from a response's status: `incomplete` says why in `incomplete_details`. */
export function mapOpenAIResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
): FinishReason {
  if (status === 'incomplete') {
    if (incompleteReason === 'max_output_tokens') return 'length';
    if (incompleteReason === 'content_filter') return 'content-filter';
    return 'other';
  }
  if (status === 'failed') return 'error';
  if (hasToolCalls) return 'tool-calls';
  return status === 'completed' ? 'stop' : 'other';
}

/** A reasoning item as a part: its summary as text, the item kept verbatim for the next turn. */
export function reasoningPartOf(item: ResponsesWireItem): ReasoningPart {
  return {
    type: 'reasoning',
    text: (item.summary ?? []).map((part) => part.text ?? '').join('\n\n'),
    providerMetadata: { [RESPONSES_METADATA_KEY]: { item } },
  };
}

export function messageText(item: ResponsesWireItem): { text: string; refusal: string } {
  let text = '';
  let refusal = '';
  for (const part of item.content ?? []) {
    if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
    else if (part.type === 'refusal' && typeof part.refusal === 'string') refusal += part.refusal;
  }
  return { text, refusal };
}

/** Gives each call a usable id: the provider's `call_id`, or a made-up one when missing or repeated. */
export function uniqueCallId(callId: unknown, seen: Set<string>): string {
  let id = typeof callId === 'string' && callId !== '' ? callId : generateToolCallId();
  if (seen.has(id)) id = generateToolCallId();
  seen.add(id);
  return id;
}

/** Reads a non-streamed (or the final streamed) response into response parts. */
export function readOpenAIResponsesOutput(
  response: ResponsesWireResponse,
  fallbackModelId: string,
): OpenAIResponseParts {
  let text = '';
  let refusal = '';
  const reasoningParts: ReasoningPart[] = [];
  const toolCalls: ToolCall[] = [];
  const droppedCalls: OpenAIResponseParts['droppedCalls'] = [];
  const seen = new Set<string>();
  const providerToolCalls: ProviderToolCall[] = [];
  for (const item of response.output ?? []) {
    if (item.type === 'reasoning') reasoningParts.push(reasoningPartOf(item));
    else if (item.type === 'message') {
      const read = messageText(item);
      text += read.text;
      refusal += read.refusal;
    } else if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const id = uniqueCallId(item.call_id, seen);
      const args = callArguments(item);
      if (typeof item.name === 'string' && item.name !== '')
        toolCalls.push({ id, name: item.name, arguments: args });
      else droppedCalls.push({ id, arguments: args });
    } else if (item.type === 'tool_search_output') {
      attachSearchOutput(providerToolCalls, item);
    } else {
      const providerCall = providerToolCallOf(item);
      if (providerCall) providerToolCalls.push(providerCall);
    }
  }
  const status = response.status ?? undefined;
  const incompleteReason = response.incomplete_details?.reason ?? undefined;
  return {
    text,
    reasoning: reasoningParts.map((part) => part.text).join(''),
    reasoningParts,
    refusal,
    toolCalls,
    rawFinishReason: status === 'incomplete' && incompleteReason ? incompleteReason : status,
    finishReason: mapOpenAIResponsesFinishReason(
      status,
      incompleteReason,
      toolCalls.length > 0 || providerToolCalls.some(awaitsApproval),
    ),
    usage: mapOpenAIResponsesUsage(response.usage),
    modelId: response.model ?? fallbackModelId,
    responseId: response.id,
    droppedCalls,
    ...(providerToolCalls.length > 0 ? { providerToolCalls } : {}),
    ...replayMetadata(response.output ?? []),
  };
}

/** The arguments of a function call (JSON text), or `{ input }` of a free-text tool's call. */
function callArguments(item: ResponsesWireItem): unknown {
  if (item.type === 'custom_tool_call')
    return { input: typeof item.input === 'string' ? item.input : '' };
  return item.arguments === undefined || item.arguments === null ? '' : item.arguments;
}

const awaitsApproval = (call: ProviderToolCall) =>
  call.approvalRequestId !== undefined && call.result === undefined;

/** An output item the API ran itself (MCP, tool search), or an approval it waits for, as a call. */
export function providerToolCallOf(item: ResponsesWireItem): ProviderToolCall | undefined {
  const id = typeof item.id === 'string' ? item.id : '';
  const server = typeof item.server_label === 'string' ? { server: item.server_label } : {};
  if (item.type === 'mcp_call') {
    const failed = item.error !== undefined && item.error !== null;
    const output = failed ? item.error : item.output;
    return {
      id,
      name: String(item.name ?? ''),
      ...server,
      arguments: item.arguments ?? '',
      result: {
        text: typeof output === 'string' ? output : JSON.stringify(output ?? ''),
        isError: failed,
      },
    };
  }
  if (item.type === 'mcp_approval_request')
    return {
      id,
      name: String(item.name ?? ''),
      ...server,
      arguments: item.arguments ?? '',
      approvalRequestId: id,
    };
  if (item.type === 'tool_search_call')
    return { id, name: 'tool_search', arguments: item.arguments ?? {} };
  return undefined;
}

/**
 * A hosted tool search's output completes its call: the names of the tools it loaded (namespaces
 * by their member names). Returns the call it completed.
 */
export function attachSearchOutput(
  calls: ProviderToolCall[],
  item: ResponsesWireItem,
): ProviderToolCall | undefined {
  // Hosted searches carry no call id: an output completes the latest search without one.
  const call = [...calls]
    .reverse()
    .find((candidate) => candidate.name === 'tool_search' && candidate.result === undefined);
  if (!call) return undefined;
  const names = (Array.isArray(item.tools) ? (item.tools as Array<Record<string, unknown>>) : [])
    .flatMap((tool) =>
      tool.type === 'namespace' && Array.isArray(tool.tools)
        ? (tool.tools as Array<Record<string, unknown>>).map((member) => member.name)
        : [tool.name],
    )
    .filter((name): name is string => typeof name === 'string');
  call.result = { text: JSON.stringify(names), isError: item.status === 'incomplete' };
  return call;
}

/** Item types only the Responses API knows: an answer with any is replayed item by item. */
const REPLAYED_ITEMS = new Set([
  'tool_search_call',
  'tool_search_output',
  'mcp_list_tools',
  'mcp_call',
  'mcp_approval_request',
  'program',
  'program_output',
]);

/** The output items to send back on the next turn, when some are of a kind only the API knows. */
export function replayMetadata(
  output: readonly ResponsesWireItem[],
): { metadata: Record<string, unknown> } | Record<string, never> {
  const special = output.some(
    (item) =>
      REPLAYED_ITEMS.has(String(item.type)) || (item.caller !== undefined && item.caller !== null),
  );
  return special ? { metadata: { [RESPONSES_METADATA_KEY]: { items: output } } } : {};
}

/**
 * The error for a response whose status is `failed` (a `response.failed` event, or a
 * non-streamed answer): its `error.code` decides the class as an HTTP status would.
 */
export function responsesFailure(provider: string, response: ResponsesWireResponse): ProviderError {
  const code = response.error?.code ?? undefined;
  const status =
    code === 'rate_limit_exceeded'
      ? 429
      : code === 'invalid_prompt' || code === 'context_length_exceeded'
        ? 400
        : 500;
  return providerErrorFromStatus(status, {
    provider,
    message: `${provider}: the response failed${code ? ` (${code})` : ''}: ${response.error?.message ?? 'no reason given'}`,
    providerData: response,
    contextOverflow: code === 'context_length_exceeded',
  });
}
