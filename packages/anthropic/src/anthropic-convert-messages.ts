import {
  prepareTranscript,
  replayToolArguments,
  toolResultText,
  type AssistantMessage,
  type ChatWarning,
  type ImagePart,
  type Message,
  type ToolCall,
  type ToolResult,
  type UserContentPart,
} from '@toolwire/schema';
import type {
  AnthropicContentBlockParam,
  AnthropicImageBlockParam,
  AnthropicImageMediaType,
  AnthropicMessageParam,
  AnthropicTextBlockParam,
  AnthropicToolResultBlockParam,
} from './anthropic-wire.js';

const IMAGE_MEDIA_TYPES = new Set<string>(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export interface AnthropicPrompt {
  system?: string;
  messages: AnthropicMessageParam[];
  warnings: ChatWarning[];
  /** The code execution container the last assistant turn ran in, to continue it. */
  container?: string;
}

/** The key of Anthropic's data kept on assistant messages (`content` blocks to replay, `container`). */
export const ANTHROPIC_METADATA_KEY = 'anthropic';

/** What an assistant message keeps of the response it came from. */
export interface AnthropicReplay {
  /** The response's content blocks, when some are of a kind only the API knows. */
  content?: Array<Record<string, unknown>>;
  /** The code execution container id. */
  container?: string;
}

function anthropicReplayOf(
  metadata: Record<string, unknown> | undefined,
): AnthropicReplay | undefined {
  const entry = metadata?.[ANTHROPIC_METADATA_KEY];
  return entry !== null && typeof entry === 'object' ? (entry as AnthropicReplay) : undefined;
}

/**
 * Converts a provider-neutral transcript to Anthropic's: system messages go to `system`; an
 * assistant turn is resent as thinking blocks (verbatim, with signatures), text, then `tool_use`;
 * the results of a turn become ONE user message that starts with every `tool_result` in call
 * order (`is_error` on failures, images inside the result), followed by any user text that comes
 * next. A transcript providers would reject is repaired first, and each fix reported.
 */
export function convertToAnthropicMessages(input: readonly Message[]): AnthropicPrompt {
  const prepared = prepareTranscript(input);
  const { messages } = prepared;
  const warnings: ChatWarning[] = [...prepared.warnings];

  const system: string[] = [];
  const out: AnthropicMessageParam[] = [];
  let container: string | undefined;

  const pushUserBlocks = (blocks: AnthropicContentBlockParam[], mergeIntoToolResults: boolean) => {
    const last = out[out.length - 1];
    if (
      mergeIntoToolResults &&
      last?.role === 'user' &&
      Array.isArray(last.content) &&
      last.content[0]?.type === 'tool_result'
    ) {
      last.content.push(...blocks);
      return;
    }
    out.push({ role: 'user', content: blocks });
  };

  for (const [index, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user': {
        const blocks =
          typeof message.content === 'string'
            ? [{ type: 'text' as const, text: message.content }]
            : message.content.map((part) => userPart(part, warnings, `messages[${index}]`));
        const previous = out[out.length - 1];
        const afterToolResults =
          previous?.role === 'user' &&
          Array.isArray(previous.content) &&
          previous.content[0]?.type === 'tool_result';
        if (!afterToolResults && typeof message.content === 'string')
          out.push({ role: 'user', content: message.content });
        else pushUserBlocks(blocks, true);
        break;
      }
      case 'assistant': {
        const replay = anthropicReplayOf(message.providerMetadata);
        if (replay?.container !== undefined) container = replay.container;
        const blocks = replay?.content
          ? replayedBlocks(message, replay.content)
          : assistantBlocks(message, warnings);
        if (blocks.length > 0) out.push({ role: 'assistant', content: blocks });
        break;
      }
      case 'tool': {
        out.push({
          role: 'user',
          content: message.results.map((result) => toolResultBlock(result, warnings)),
        });
        break;
      }
    }
  }

  return {
    ...(system.length > 0 ? { system: system.join('\n\n') } : {}),
    messages: out,
    warnings,
    ...(container !== undefined ? { container } : {}),
  };
}

function userPart(
  part: UserContentPart,
  warnings: ChatWarning[],
  path: string,
): AnthropicTextBlockParam | AnthropicImageBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  return imageBlock(part) ?? imageFallback(part, warnings, path);
}

function imageBlock(part: ImagePart): AnthropicImageBlockParam | undefined {
  if (!IMAGE_MEDIA_TYPES.has(part.mediaType)) return undefined;
  return {
    type: 'image',
    source: {
      type: 'base64',
      media_type: part.mediaType as AnthropicImageMediaType,
      data: part.data,
    },
  };
}

function imageFallback(
  part: ImagePart,
  warnings: ChatWarning[],
  where: string,
): AnthropicTextBlockParam {
  warnings.push({
    type: 'image-as-text',
    message: `${where}: Anthropic accepts only image/jpeg, image/png, image/gif and image/webp; a ${part.mediaType} image was replaced by a text placeholder`,
  });
  return { type: 'text', text: `[image: ${part.mediaType}, not shown: unsupported image type]` };
}

function assistantBlocks(
  message: AssistantMessage,
  warnings: ChatWarning[],
): AnthropicContentBlockParam[] {
  const blocks: AnthropicContentBlockParam[] = [];
  for (const reasoning of message.reasoning ?? []) {
    if (reasoning.redactedData !== undefined)
      blocks.push({ type: 'redacted_thinking', data: reasoning.redactedData });
    else if (reasoning.signature !== undefined)
      blocks.push({ type: 'thinking', thinking: reasoning.text, signature: reasoning.signature });
    else {
      // Unsigned reasoning comes from another provider; Anthropic rejects thinking it did not sign.
      warnings.push({
        type: 'transcript-repaired',
        message: 'dropped unsigned reasoning (from another provider) that Anthropic would reject',
      });
    }
  }
  if (message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.toolCalls ?? []) blocks.push(toolUseBlock(call));
  return blocks;
}

function toolUseBlock(call: ToolCall, caller?: unknown): AnthropicContentBlockParam {
  return {
    type: 'tool_use',
    id: call.id,
    name: call.name,
    input: replayToolArguments(call.name, call.arguments),
    ...(caller !== undefined ? { caller: caller as Record<string, unknown> } : {}),
  };
}

/**
 * An assistant turn whose response held blocks only the API knows (tool search, MCP calls, code
 * execution): its blocks go back as they came, in order, with the calls as the conversation has
 * them now (a repaired call replaces the model's; the caller of a programmatic call is kept).
 */
function replayedBlocks(
  message: AssistantMessage,
  content: ReadonlyArray<Record<string, unknown>>,
): AnthropicContentBlockParam[] {
  const calls = new Map((message.toolCalls ?? []).map((call) => [call.id, call]));
  const blocks: AnthropicContentBlockParam[] = [];
  for (const block of content) {
    if (block.type !== 'tool_use') {
      blocks.push(block as AnthropicContentBlockParam);
      continue;
    }
    const call = calls.get(String(block.id));
    if (!call) continue;
    calls.delete(call.id);
    blocks.push(toolUseBlock(call, block.caller));
  }
  for (const call of calls.values()) blocks.push(toolUseBlock(call));
  return blocks;
}

function toolResultBlock(
  result: ToolResult,
  warnings: ChatWarning[],
): AnthropicToolResultBlockParam {
  const content: Array<AnthropicTextBlockParam | AnthropicImageBlockParam> = [];
  for (const part of result.content) {
    if (part.type === 'image') {
      content.push(
        imageBlock(part) ?? imageFallback(part, warnings, `tool result "${result.toolCallId}"`),
      );
    } else {
      content.push({ type: 'text', text: toolResultText({ ...result, content: [part] }) });
    }
  }
  const block: AnthropicToolResultBlockParam = {
    type: 'tool_result',
    tool_use_id: result.toolCallId,
  };
  if (content.length === 1 && content[0]!.type === 'text' && !result.isError)
    block.content = content[0]!.text;
  else if (content.length > 0) block.content = content;
  if (result.isError) block.is_error = true;
  return block;
}
