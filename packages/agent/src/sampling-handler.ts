import type { ChatModel, FinishReason, Message, UserContentPart } from '@toolwire/schema';

/**
 * The `params` of an MCP `sampling/createMessage` request, as far as a model needs them (typed
 * loosely: the SDKs' own types of every revision fit; content is read at run time).
 */
export interface SamplingParams {
  messages: ReadonlyArray<{ role: string; content: unknown }>;
  systemPrompt?: string;
  maxTokens?: number;
  temperature?: number;
  stopSequences?: string[];
}

/** The MCP `CreateMessageResult` a model's answer becomes (a type alias: the SDKs' result types are open records). */
export type SamplingResult = {
  role: 'assistant';
  content: { type: 'text'; text: string };
  model: string;
  stopReason: string;
};

/**
 * A handler for the `sampling/createMessage` requests of MCP servers, answered by `model` (pass
 * it as `handlers.sampling` of `@toolwire/mcp`'s `createRegistry`): an upstream that asks the
 * client's model to write something gets the agent's own model. Text and image content go to the
 * model; the system prompt, `maxTokens`, temperature and stop sequences are kept.
 */
export function createSamplingHandler(
  model: ChatModel,
): (params: SamplingParams, context: { signal: AbortSignal }) => Promise<SamplingResult> {
  return async (params, context) => {
    const messages: Message[] = [];
    if (params.systemPrompt) messages.push({ role: 'system', content: params.systemPrompt });
    for (const message of params.messages) {
      const contents: unknown[] = Array.isArray(message.content)
        ? message.content
        : [message.content];
      const parts = contents.flatMap(toPart);
      if (message.role === 'assistant')
        messages.push({
          role: 'assistant',
          content: parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
        });
      else messages.push({ role: 'user', content: parts });
    }
    const response = await model.generate({
      messages,
      ...(params.maxTokens !== undefined ? { maxOutputTokens: params.maxTokens } : {}),
      ...(params.temperature !== undefined ? { temperature: params.temperature } : {}),
      ...(params.stopSequences?.length ? { stopSequences: params.stopSequences } : {}),
      signal: context.signal,
    });
    return {
      role: 'assistant',
      content: { type: 'text', text: response.text },
      model: model.modelId,
      stopReason: stopReasonOf(response.finishReason),
    };
  };
}

function toPart(raw: unknown): UserContentPart[] {
  const content = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (content.type === 'text' && typeof content.text === 'string')
    return [{ type: 'text', text: content.text }];
  if (content.type === 'image' && typeof content.data === 'string')
    return [{ type: 'image', data: content.data, mediaType: String(content.mimeType) }];
  // Audio and tool content have no place in a text model's input: said, not dropped silently.
  return [{ type: 'text', text: `[${String(content.type)} content left out]` }];
}

/** MCP's `stopReason` for a finish reason: `endTurn`, `maxTokens`, `stopSequence` or as it is. */
function stopReasonOf(reason: FinishReason): string {
  if (reason === 'stop') return 'endTurn';
  if (reason === 'length') return 'maxTokens';
  return reason;
}
