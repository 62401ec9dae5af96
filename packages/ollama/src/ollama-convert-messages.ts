import {
  prepareTranscript,
  replayToolArguments,
  toolResultText,
  userMessageText,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ToolResult,
} from '@toolwire/schema';
import type { OllamaMessageParam } from './ollama-wire.js';

/**
 * Converts a provider-neutral transcript to Ollama's: the assistant turn is resent with
 * `tool_calls` (arguments as objects), then one `{role:'tool', content, tool_name}` per result in
 * call order. Ollama has no error flag, so a failed result's text says it failed. Ollama does not
 * take images in tool messages: each image is replaced by a placeholder naming it, and the images
 * follow in one user message (`images`) right after the turn's results, with an `image-as-text`
 * warning. A transcript with missing or misplaced results is repaired first, and each fix reported.
 */
export function convertToOllamaMessages(input: readonly Message[]): {
  messages: OllamaMessageParam[];
  warnings: ChatWarning[];
} {
  const prepared = prepareTranscript(input);
  const { messages } = prepared;
  const warnings: ChatWarning[] = [...prepared.warnings];

  const out: OllamaMessageParam[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        out.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const images =
          typeof message.content === 'string'
            ? []
            : message.content.filter((part): part is ImagePart => part.type === 'image');
        out.push({
          role: 'user',
          content: userMessageText(message),
          ...(images.length > 0 ? { images: images.map((image) => image.data) } : {}),
        });
        break;
      }
      case 'assistant': {
        const calls = (message.toolCalls ?? []).map((call) => ({
          function: { name: call.name, arguments: replayToolArguments(call.name, call.arguments) },
        }));
        const thinking = (message.reasoning ?? []).map((part) => part.text).join('');
        out.push({
          role: 'assistant',
          content: message.content,
          ...(thinking !== '' ? { thinking } : {}),
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        });
        break;
      }
      case 'tool': {
        const moved: Array<{ result: ToolResult; image: ImagePart; number: number }> = [];
        for (const result of message.results) {
          out.push({
            role: 'tool',
            content: toolMessageContent(result, moved),
            tool_name: result.toolName,
          });
        }
        if (moved.length > 0) {
          warnings.push({
            type: 'image-as-text',
            message: `Ollama does not accept images in tool messages: ${moved.length} image(s) were replaced by placeholders and sent in a user message after the results`,
          });
          out.push({
            role: 'user',
            content: `Images returned by the tool calls above, in order: ${moved
              .map(
                ({ result, image, number }) =>
                  `image ${number} (${image.mediaType}) from ${result.toolName} (call ${result.toolCallId})`,
              )
              .join('; ')}.`,
            images: moved.map(({ image }) => image.data),
          });
        }
        break;
      }
    }
  }
  return { messages: out, warnings };
}

function toolMessageContent(
  result: ToolResult,
  moved: Array<{ result: ToolResult; image: ImagePart; number: number }>,
): string {
  // Ollama has no error flag on tool messages: a failure says so in its text.
  return toolResultText(result, {
    markFailure: true,
    imageText: (image) => {
      const number = moved.length + 1;
      moved.push({ result, image, number });
      return `[image ${number}: ${image.mediaType}, attached to the next user message]`;
    },
  });
}
