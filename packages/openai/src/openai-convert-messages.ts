import {
  UsageError,
  base64Bytes,
  prepareTranscript,
  toolResultText,
  toolCallArgumentsObject,
  toolCallArgumentsText,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ToolCall,
  type ToolResult,
} from '@toolwire/schema';
import type {
  OpenAIUserContentPart,
  OpenAIWireMessage,
  OpenAIWireToolCall,
} from './openai-wire.js';

export interface ConvertToOpenAIMessagesOptions {
  /**
   * Chat Completions tool messages accept only text. `user-message` (default) sends a tool result's
   * images in one user message right after the tool messages of that turn (the tool message says
   * where they went); `text` replaces them with a placeholder, for servers without image input.
   */
  imageToolResults: 'user-message' | 'text';
  /** Tools sent as free-text (`custom`) tools: their calls are resent as `custom` calls. */
  customToolNames?: ReadonlySet<string>;
}

export const dataUrl = (image: ImagePart): string => `data:${image.mediaType};base64,${image.data}`;

export function toolMessageContent(result: ToolResult, imagesMoved: boolean): string {
  // Chat Completions has no error flag on tool messages, so a failure has to say so in its text.
  return toolResultText(result, {
    markFailure: true,
    imageText: (image) =>
      imagesMoved
        ? `[image (${image.mediaType}, ${base64Bytes(image.data)} bytes) attached in the next user message]`
        : `[image (${image.mediaType}, ${base64Bytes(image.data)} bytes) not shown: this model does not accept images in tool results]`,
  });
}

/**
 * Converts Toolwire messages to Chat Completions messages: assistant tool calls are resent with
 * arguments as JSON text, each result becomes a `role: "tool"` message with its `tool_call_id`,
 * in call order, directly after the assistant message (OpenAI rejects anything in between). A
 * transcript OpenAI would reject (a call without its result after a cancelled turn, orphan or
 * misplaced results) is repaired first, each fix reported as a `transcript-repaired` warning.
 */
export function convertToOpenAIMessages(
  input: readonly Message[],
  options: ConvertToOpenAIMessagesOptions,
  warnings: ChatWarning[],
): OpenAIWireMessage[] {
  const prepared = prepareTranscript(input);
  const { messages } = prepared;
  warnings.push(...prepared.warnings);
  const out: OpenAIWireMessage[] = [];
  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        return;
      case 'user':
        if (typeof message.content === 'string') {
          out.push({ role: 'user', content: message.content });
        } else {
          out.push({
            role: 'user',
            content: message.content.map((part): OpenAIUserContentPart =>
              part.type === 'text'
                ? { type: 'text', text: part.text }
                : { type: 'image_url', image_url: { url: dataUrl(part) } },
            ),
          });
        }
        return;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        out.push({
          role: 'assistant',
          content: message.content === '' && calls.length > 0 ? null : message.content,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call): OpenAIWireToolCall =>
                  options.customToolNames?.has(call.name)
                    ? {
                        id: call.id,
                        type: 'custom',
                        custom: { name: call.name, input: customInputText(call) },
                      }
                    : {
                        id: call.id,
                        type: 'function',
                        function: { name: call.name, arguments: toolCallArgumentsText(call) },
                      },
                ),
              }
            : {}),
        });
        return;
      }
      case 'tool': {
        const moved: OpenAIUserContentPart[] = [];
        for (const result of message.results) {
          const images = result.content.filter((part): part is ImagePart => part.type === 'image');
          const move = images.length > 0 && options.imageToolResults === 'user-message';
          out.push({
            role: 'tool',
            tool_call_id: result.toolCallId,
            content: toolMessageContent(result, move),
          });
          if (images.length === 0) continue;
          warnings.push({
            type: 'image-as-text',
            toolName: result.toolName,
            message: move
              ? `messages[${index}]: ${images.length} image(s) from tool "${result.toolName}" sent in a user message after the tool messages (Chat Completions tool messages accept only text)`
              : `messages[${index}]: ${images.length} image(s) from tool "${result.toolName}" replaced by a text placeholder (imageToolResults: "text")`,
          });
          if (move) {
            moved.push({
              type: 'text',
              text: `Images returned by tool "${result.toolName}" (call ${result.toolCallId}):`,
            });
            for (const image of images)
              moved.push({ type: 'image_url', image_url: { url: dataUrl(image) } });
          }
        }
        if (moved.length > 0) out.push({ role: 'user', content: moved });
        return;
      }
      default:
        throw new UsageError({
          message: `messages[${index}].role must be "system", "user", "assistant" or "tool" (got ${JSON.stringify((message as { role?: unknown }).role)})`,
        });
    }
  });
  return out;
}

/** The text a free-text tool's call carried (its arguments are `{ input }`). */
export function customInputText(call: ToolCall): string {
  const input = toolCallArgumentsObject(call)?.input;
  return typeof input === 'string' ? input : toolCallArgumentsText(call);
}
