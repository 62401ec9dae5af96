import {
  UsageError,
  prepareTranscript,
  toolCallArgumentsText,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ReasoningPart,
  type ToolResult,
} from '@toolwire/schema';
import { dataUrl, toolMessageContent } from './openai-convert-messages.js';
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
        for (const part of message.reasoning ?? []) {
          const item = reasoningItemOf(part);
          if (item) out.push(item as ResponsesInputItem);
        }
        if (message.content !== '') out.push({ role: 'assistant', content: message.content });
        for (const call of message.toolCalls ?? [])
          out.push({
            type: 'function_call',
            call_id: call.id,
            name: call.name,
            arguments: toolCallArgumentsText(call),
          });
        return;
      }
      case 'tool':
        for (const result of message.results)
          out.push({
            type: 'function_call_output',
            call_id: result.toolCallId,
            output: functionCallOutput(result),
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
