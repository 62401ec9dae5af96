import {
  UsageError,
  prepareTranscript,
  toolCallArgumentsObject,
  toolResultText,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ToolResult,
} from '@toolwire/schema';
import type { Content, Part } from '@google/genai';

/** The key of Gemini's data in `providerMetadata` (tool calls, reasoning, assistant messages). */
export const GOOGLE_METADATA_KEY = 'google';

/** What a Gemini tool call or answer keeps for the next turn. */
export interface GoogleCallMetadata {
  /** The signature the API put on the part, to send back on the same part. */
  thoughtSignature?: string;
  /** The id was made up here (the API sent none): it is not sent back. */
  generatedId?: boolean;
}

function googleMetadata(metadata: Record<string, unknown> | undefined): GoogleCallMetadata {
  const entry = metadata?.[GOOGLE_METADATA_KEY];
  return entry !== null && typeof entry === 'object' ? (entry as GoogleCallMetadata) : {};
}

/**
 * A result as a `functionResponse`: Gemini reads `output` as the function's output and `error`
 * as its failure (the documented convention). Images go in `inlineData` parts of the same user
 * turn, after the function responses.
 */
function functionResponsePart(result: ToolResult, callIds: Map<string, string | undefined>): Part {
  // Images go in their own parts (below), not in the text.
  const text = toolResultText(result, { imageText: () => undefined });
  const value = text === '' ? (result.isError ? 'Tool execution failed.' : '') : text;
  const id = callIds.has(result.toolCallId) ? callIds.get(result.toolCallId) : result.toolCallId;
  return {
    functionResponse: {
      ...(id !== undefined ? { id } : {}),
      name: result.toolName,
      response: result.isError ? { error: value } : { output: value },
    },
  };
}

/**
 * Converts Toolwire messages to Gemini `contents` plus the `systemInstruction` text. Assistant
 * turns become `model` contents whose parts carry back their thought signatures (on the text
 * part and on each `functionCall`, where the API put them); ids the API did not send are not sent
 * back. The results of a turn become one `user` content of `functionResponse` parts, in call
 * order, followed by the results' images as `inlineData`. Reasoning text is not resent (Gemini
 * needs only the signatures), except signed thoughts, which go back as they came.
 */
export function convertToGoogleMessages(
  input: readonly Message[],
  warnings: ChatWarning[],
): { contents: Content[]; system: string | undefined } {
  const prepared = prepareTranscript(input);
  warnings.push(...prepared.warnings);
  const contents: Content[] = [];
  const systemParts: string[] = [];
  // Ids to send with each call's response (undefined: made up here, so not sent).
  const callIds = new Map<string, string | undefined>();
  prepared.messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        systemParts.push(message.content);
        return;
      case 'user':
        contents.push({
          role: 'user',
          parts:
            typeof message.content === 'string'
              ? [{ text: message.content }]
              : message.content.map((part) =>
                  part.type === 'text'
                    ? { text: part.text }
                    : { inlineData: { mimeType: part.mediaType, data: part.data } },
                ),
        });
        return;
      case 'assistant': {
        const parts: Part[] = [];
        for (const reasoning of message.reasoning ?? []) {
          if (reasoning.signature)
            parts.push({
              text: reasoning.text,
              thought: true,
              thoughtSignature: reasoning.signature,
            });
        }
        const textSignature = googleMetadata(message.providerMetadata).thoughtSignature;
        if (message.content !== '')
          parts.push({
            text: message.content,
            ...(textSignature ? { thoughtSignature: textSignature } : {}),
          });
        for (const call of message.toolCalls ?? []) {
          const metadata = googleMetadata(call.providerMetadata);
          const id = metadata.generatedId ? undefined : call.id;
          callIds.set(call.id, id);
          parts.push({
            functionCall: {
              ...(id !== undefined ? { id } : {}),
              name: call.name,
              args: toolCallArgumentsObject(call) ?? {},
            },
            ...(metadata.thoughtSignature ? { thoughtSignature: metadata.thoughtSignature } : {}),
          });
        }
        if (parts.length === 0) parts.push({ text: '' });
        contents.push({ role: 'model', parts });
        return;
      }
      case 'tool': {
        const parts: Part[] = message.results.map((result) =>
          functionResponsePart(result, callIds),
        );
        for (const result of message.results) {
          for (const image of result.content.filter(
            (part): part is ImagePart => part.type === 'image',
          ))
            parts.push({ inlineData: { mimeType: image.mediaType, data: image.data } });
        }
        contents.push({ role: 'user', parts });
        return;
      }
      default:
        throw new UsageError({
          message: `messages[${index}].role must be "system", "user", "assistant" or "tool" (got ${JSON.stringify((message as { role?: unknown }).role)})`,
        });
    }
  });
  return { contents, system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined };
}
