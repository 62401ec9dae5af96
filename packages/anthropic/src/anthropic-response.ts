import {
  generateToolCallId,
  parseToolArguments,
  toolChoiceViolation,
  type ChatResponse,
  type ChatWarning,
  type FinishReason,
  type ProviderToolCall,
  type ReasoningPart,
  type ToolCall,
  type Usage,
} from '@toolwire/schema';
import { ANTHROPIC_METADATA_KEY, type AnthropicReplay } from './anthropic-convert-messages.js';
import type { PreparedTools } from './anthropic-prepare-tools.js';
import type { AnthropicContentBlock, AnthropicMessage, AnthropicUsage } from './anthropic-wire.js';

/** Anthropic `stop_reason` → the normalised finish reason. */
export function mapAnthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/**
 * Normalised usage. Anthropic's `input_tokens` excludes cache reads and writes; `inputTokens` here
 * is every input token (like OpenAI's `prompt_tokens`), with the cached and cache-written shares
 * reported separately.
 */
export function mapAnthropicUsage(usage: AnthropicUsage | undefined): Usage {
  const cacheRead = usage?.cache_read_input_tokens ?? undefined;
  const cacheWrite = usage?.cache_creation_input_tokens ?? undefined;
  const inputTokens = (usage?.input_tokens ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
  const outputTokens = usage?.output_tokens ?? 0;
  const reasoning = usage?.output_tokens_details?.thinking_tokens ?? undefined;
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(cacheRead !== undefined ? { cachedInputTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cacheWriteInputTokens: cacheWrite } : {}),
    ...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
  };
}

export interface FinishContext {
  modelId: string;
  prepared: PreparedTools;
  /** Warnings gathered while building the request. */
  warnings: ChatWarning[];
}

/**
 * Turns a whole Anthropic message (from `messages.create` or assembled from a stream) into the
 * normalised response. Both paths end here, which is why streaming and non-streaming agree.
 */
export function finishAnthropicResponse(
  message: AnthropicMessage,
  context: FinishContext,
): ChatResponse {
  const warnings = [...context.warnings];
  let text = '';
  const reasoning: ReasoningPart[] = [];
  let toolCalls: ToolCall[] = [];
  let replay = false;
  const providerToolCalls = readProviderToolCalls(message.content);
  for (const block of message.content) {
    if (!KNOWN_BLOCKS.has(block.type)) replay = true;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking') {
      reasoning.push({
        type: 'reasoning',
        text: String(block.thinking ?? ''),
        signature: String(block.signature ?? ''),
      });
    } else if (block.type === 'redacted_thinking') {
      reasoning.push({ type: 'reasoning', text: '', redactedData: String(block.data ?? '') });
    } else if (block.type === 'tool_use') {
      if (block.caller !== undefined && (block.caller as { type?: unknown }).type !== 'direct')
        replay = true;
      toolCalls.push({
        id:
          typeof block.id === 'string' && block.id !== '' ? block.id : generateToolCallId('toolu'),
        name: String(block.name),
        arguments: block.input ?? {},
      });
    }
  }

  const rawFinishReason = message.stop_reason ?? undefined;
  let finishReason = mapAnthropicFinishReason(rawFinishReason);
  let object: unknown;
  let hasObject = false;
  const responseTool = context.prepared.responseTool;
  if (responseTool) {
    const call = toolCalls.find((candidate) => candidate.name === responseTool.name);
    toolCalls = toolCalls.filter((candidate) => candidate.name !== responseTool.name);
    // With thinking on the tool cannot be forced, so a JSON answer in text is accepted too.
    const raw = call ? call.arguments : text.trim() !== '' ? text : undefined;
    if (raw !== undefined) {
      const parsed = parseToolArguments(responseTool.schema, raw, {
        toolName: responseTool.name,
        outputTruncated: finishReason === 'length',
      });
      if (!parsed.success) throw parsed.error;
      object = parsed.value;
      hasObject = true;
      if (parsed.repaired) {
        warnings.push({
          type: 'arguments-repaired',
          toolName: responseTool.name,
          message: `structured output repaired: ${parsed.repairs.join('; ')}`,
        });
      }
      if (call && toolCalls.length === 0 && finishReason === 'tool-calls') finishReason = 'stop';
    } else {
      warnings.push({
        type: 'other',
        toolName: responseTool.name,
        message:
          'structured output was requested but the model produced neither the response tool call nor text',
      });
    }
  }

  const wanted = context.prepared.downgradedFrom;
  if (wanted !== undefined && !responseTool) {
    const violation = toolChoiceViolation(
      wanted,
      toolCalls.map((call) => call.name),
    );
    if (violation) warnings.push({ type: 'tool-choice-ignored', message: violation });
  }

  const container = typeof message.container?.id === 'string' ? message.container.id : undefined;
  const metadata: AnthropicReplay = {
    ...(replay ? { content: message.content as Array<Record<string, unknown>> } : {}),
    ...(container !== undefined ? { container } : {}),
  };
  return {
    text,
    toolCalls,
    ...(providerToolCalls.length > 0 ? { providerToolCalls } : {}),
    ...(Object.keys(metadata).length > 0
      ? { providerMetadata: { [ANTHROPIC_METADATA_KEY]: metadata } }
      : {}),
    finishReason,
    ...(rawFinishReason !== undefined ? { rawFinishReason } : {}),
    usage: mapAnthropicUsage(message.usage),
    ...(reasoning.length > 0 ? { reasoning } : {}),
    ...(hasObject ? { object } : {}),
    warnings,
    modelId: message.model ?? context.modelId,
    ...(message.id !== undefined ? { responseId: message.id } : {}),
  };
}

/** Block types this adapter reads into the response; any other makes the turn replayed as it came. */
const KNOWN_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);

/**
 * The calls the API ran itself, with what they returned: its tool search (`server_tool_use` and
 * `tool_search_tool_result`), code execution, and MCP connector calls (`mcp_tool_use` and
 * `mcp_tool_result`).
 */
export function readProviderToolCalls(
  content: readonly AnthropicContentBlock[],
): ProviderToolCall[] {
  const results = new Map<string, Record<string, unknown>>();
  for (const block of content) {
    const id = (block as { tool_use_id?: unknown }).tool_use_id;
    if (typeof id === 'string' && block.type !== 'tool_result') results.set(id, block);
  }
  const calls: ProviderToolCall[] = [];
  for (const block of content) {
    if (block.type !== 'server_tool_use' && block.type !== 'mcp_tool_use') continue;
    const use = block as { id?: unknown; name?: unknown; input?: unknown; server_name?: unknown };
    const id = String(use.id ?? '');
    const result = results.get(id);
    calls.push({
      id,
      name: String(use.name ?? ''),
      ...(typeof use.server_name === 'string' ? { server: use.server_name } : {}),
      arguments: use.input ?? {},
      ...(result ? { result: resultOf(result) } : {}),
    });
  }
  return calls;
}

function resultOf(block: Record<string, unknown>): { text: string; isError: boolean } {
  const content = block.content as Record<string, unknown> | unknown[] | string | undefined;
  if (block.type === 'mcp_tool_result') {
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content
              .map((part) => (part as { text?: unknown }).text)
              .filter((part): part is string => typeof part === 'string')
              .join('\n')
          : '';
    return { text, isError: block.is_error === true };
  }
  const inner =
    content !== null && typeof content === 'object' && !Array.isArray(content) ? content : {};
  if (typeof inner.type === 'string' && inner.type.endsWith('_error'))
    return { text: String(inner.error_code ?? 'error'), isError: true };
  if (Array.isArray(inner.tool_references))
    return {
      text: JSON.stringify(
        inner.tool_references.map((reference) => (reference as { tool_name?: unknown }).tool_name),
      ),
      isError: false,
    };
  return { text: JSON.stringify(content ?? null), isError: false };
}
