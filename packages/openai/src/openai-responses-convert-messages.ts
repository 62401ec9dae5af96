import {
  UsageError,
  prepareTranscript,
  toolCallArgumentsText,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ReasoningPart,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';
import { customInputText, dataUrl, toolMessageContent } from './openai-convert-messages.js';
import type { ResponsesInputContent, ResponsesInputItem } from './openai-wire.js';

/** The key under which reasoning parts carry the Responses reasoning item they came from. */
export const RESPONSES_METADATA_KEY = 'openai-responses';

/** The reasoning item a part was read from, to be sent back verbatim. */
function reasoningItemOf(part: ReasoningPart): Record<string, unknown> | undefined {
  const metadata = (part as { providerMetadata?: Record<string, unknown> }).providerMetadata;
  const entry = metadata?.[RESPONSES_METADATA_KEY] as { item?: unknown } | undefined;
  const item = entry?.item;
  return item !== null &&
    typeof item === 'object' &&
    (item as { type?: unknown }).type === 'reasoning'
    ? (item as Record<string, unknown>)
    : undefined;
}

function functionCallOutput(result: ToolResult): string | ResponsesInputContent[] {
  const images = result.content.filter((part): part is ImagePart => part.type === 'image');
  if (images.length === 0) return toolMessageContent(result, false);
  const rest = result.content.filter((part) => part.type !== 'image');
  const out: ResponsesInputContent[] = [];
  if (rest.length > 0 || result.isError)
    out.push({ type: 'input_text', text: toolMessageContent({ ...result, content: rest }, false) });
  for (const image of images)
    out.push({ type: 'input_image', image_url: dataUrl(image), detail: 'auto' });
  return out;
}

export interface ConvertToOpenAIResponsesMessagesOptions {
  /** Tools sent as free-text (`custom`) tools: their calls and results go back as `custom_tool_call`s. */
  customToolNames?: ReadonlySet<string>;
  /** The namespace each namespaced tool was sent in (its calls carry it). */
  namespaces?: ReadonlyMap<string, string>;
}

type CallItem = Extract<ResponsesInputItem, { type: 'function_call' | 'custom_tool_call' }>;

function callItem(call: ToolCall, options: ConvertToOpenAIResponsesMessagesOptions): CallItem {
  if (options.customToolNames?.has(call.name))
    return {
      type: 'custom_tool_call',
      call_id: call.id,
      name: call.name,
      input: customInputText(call),
    };
  const namespace = options.namespaces?.get(call.name);
  return {
    type: 'function_call',
    call_id: call.id,
    name: call.name,
    arguments: toolCallArgumentsText(call),
    ...(namespace !== undefined ? { namespace } : {}),
  };
}

/** A call made by a program (programmatic tool calling) goes back with its caller. */
function withCaller(call: CallItem, item: Record<string, unknown>): ResponsesInputItem {
  return item.caller !== undefined && item.caller !== null
    ? { ...call, caller: item.caller }
    : call;
}

/**
 * The output items of the response an assistant message came from, kept when they hold items
 * only the Responses API knows (see `readOpenAIResponsesOutput`).
 */
function outputItemsOf(
  metadata: Record<string, unknown> | undefined,
): Array<Record<string, unknown>> | undefined {
  const entry = metadata?.[RESPONSES_METADATA_KEY] as { items?: unknown } | undefined;
  return Array.isArray(entry?.items) ? (entry.items as Array<Record<string, unknown>>) : undefined;
}

/**
 * Converts Toolwire messages to a Responses `input` array. The system prompt stays a
 * `system` item (the model reads it like `instructions`, and it survives `previous_response_id`
 * -free replays); each assistant turn becomes its reasoning items (verbatim, as the API returned
 * them: with `store: false` they carry `encrypted_content`), its text and one `function_call`
 * item per call; each result becomes a `function_call_output` with the call's `call_id`, images
 * included as `input_image`. Reasoning parts that did not come from the Responses API are not
 * sent (the API accepts only its own items). The transcript is repaired first, as for Chat
 * Completions.
 */
export function convertToOpenAIResponsesMessages(
  input: readonly Message[],
  warnings: ChatWarning[],
  options: ConvertToOpenAIResponsesMessagesOptions = {},
): ResponsesInputItem[] {
  const prepared = prepareTranscript(input);
  warnings.push(...prepared.warnings);
  const out: ResponsesInputItem[] = [];
  prepared.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        return;
      case 'user':
        out.push({
          role: 'user',
          content:
            typeof message.content === 'string'
              ? message.content
              : message.content.map((part): ResponsesInputContent =>
                  part.type === 'text'
                    ? { type: 'input_text', text: part.text }
                    : { type: 'input_image', image_url: dataUrl(part), detail: 'auto' },
                ),
        });
        return;
      case 'assistant': {
        const items = outputItemsOf(message.providerMetadata);
        const calls = (message.toolCalls ?? []).map((call) => callItem(call, options));
        if (items) {
          // Provider-run items (tool search, MCP calls, approval requests, programs) go back as
          // the API returned them, in order; calls as the conversation has them now.
          const byId = new Map(calls.map((item) => [item.call_id, item]));
          let textSent = false;
          for (const item of items) {
            if (item.type === 'function_call' || item.type === 'custom_tool_call') {
              const call = byId.get(String(item.call_id));
              if (call) out.push(withCaller(call, item));
              byId.delete(String(item.call_id));
            } else if (item.type === 'message') {
              if (!textSent && message.content !== '')
                out.push({ role: 'assistant', content: message.content });
              textSent = true;
            } else out.push(item as ResponsesInputItem);
          }
          out.push(...byId.values());
          return;
        }
        for (const part of message.reasoning ?? []) {
          const item = reasoningItemOf(part);
          if (item) out.push(item as ResponsesInputItem);
        }
        if (message.content !== '') out.push({ role: 'assistant', content: message.content });
        out.push(...calls);
        return;
      }
      case 'tool':
        for (const result of message.results)
          out.push({
            type: options.customToolNames?.has(result.toolName)
              ? 'custom_tool_call_output'
              : 'function_call_output',
            call_id: result.toolCallId,
            output: functionCallOutput(result),
          });
        for (const approval of message.approvals ?? [])
          out.push({
            type: 'mcp_approval_response',
            approval_request_id: approval.approvalRequestId,
            approve: approval.approved,
            ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
          });
        return;
      default:
        throw new UsageError({
          message: `messages[${index}].role must be "system", "user", "assistant" or "tool" (got ${JSON.stringify((message as { role?: unknown }).role)})`,
        });
    }
  });
  return out;
}
