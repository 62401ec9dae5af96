// A ChatModel that answers from a script, for unit tests of the loop and the pipeline.
import {
  CancelledError,
  emptyUsage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type ChatWarning,
  type FinishReason,
  type ModelCapabilities,
  type ProviderToolCall,
  type Usage,
} from '@toolwire/schema';

interface ScriptedAnswer {
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: unknown }>;
  finishReason?: FinishReason;
  usage?: Partial<Usage>;
  object?: unknown;
  warnings?: ChatWarning[];
  providerToolCalls?: ProviderToolCall[];
  providerMetadata?: Record<string, unknown>;
}

export type ScriptedTurn =
  | ScriptedAnswer
  | { error: unknown }
  /** Never answers; rejects when the request's signal aborts (`ignoreSignal`: not even then). */
  | { hang: true; ignoreSignal?: boolean; afterText?: string }
  | ((request: ChatRequest) => ScriptedAnswer | { error: unknown });

export interface ScriptedModel extends ChatModel {
  readonly requests: ChatRequest[];
  readonly calls: Array<'generate' | 'stream'>;
  push(...turns: ScriptedTurn[]): void;
}

const FULL_CAPABILITIES: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  streamingToolCalls: true,
  toolChoice: { auto: true, none: true, required: true, specific: true },
  imagesInToolResults: true,
  imagesInUserMessages: true,
  strictSchemas: false,
  structuredOutput: 'json-schema',
  streamingUsage: true,
};

let callCounter = 0;

export function createScriptedModel(
  turns: ScriptedTurn[],
  options: { capabilities?: Partial<ModelCapabilities>; provider?: string } = {},
): ScriptedModel {
  const queue = [...turns];
  const requests: ChatRequest[] = [];
  const calls: Array<'generate' | 'stream'> = [];
  const capabilities = { ...FULL_CAPABILITIES, ...options.capabilities };

  function next(request: ChatRequest): ScriptedTurn {
    requests.push(request);
    const turn = queue.shift();
    if (turn === undefined)
      throw new Error(`scripted model: no turn left for request #${requests.length}`);
    return typeof turn === 'function' ? turn(request) : turn;
  }

  function toResponse(answer: ScriptedAnswer): ChatResponse {
    const toolCalls = (answer.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${++callCounter}`,
      name: call.name,
      arguments: call.arguments,
    }));
    const usage: Usage = {
      ...emptyUsage(),
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      ...answer.usage,
    };
    return {
      text: answer.text ?? '',
      toolCalls,
      finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      usage,
      warnings: answer.warnings ?? [],
      modelId: 'scripted-1',
      ...(answer.object !== undefined ? { object: answer.object } : {}),
      ...(answer.providerToolCalls ? { providerToolCalls: answer.providerToolCalls } : {}),
      ...(answer.providerMetadata ? { providerMetadata: answer.providerMetadata } : {}),
    };
  }

  function waitForAbort(request: ChatRequest, ignoreSignal: boolean): Promise<never> {
    return new Promise((_, reject) => {
      if (ignoreSignal || !request.signal) return;
      const onAbort = () => reject(new CancelledError({ message: 'request aborted' }));
      if (request.signal.aborted) onAbort();
      else request.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  const model: ScriptedModel = {
    provider: options.provider ?? 'scripted',
    modelId: 'scripted-1',
    capabilities,
    requests,
    calls,
    push: (...more) => queue.push(...more),
    async generate(request) {
      calls.push('generate');
      const turn = next(request);
      if ('error' in turn) throw turn.error;
      if ('hang' in turn) return waitForAbort(request, turn.ignoreSignal ?? false);
      return toResponse(turn as ScriptedAnswer);
    },
    async *stream(request): AsyncGenerator<ChatStreamPart> {
      calls.push('stream');
      const turn = next(request);
      if ('error' in turn) throw turn.error;
      if ('hang' in turn) {
        if (turn.afterText) yield { type: 'text-delta', delta: turn.afterText };
        await waitForAbort(request, turn.ignoreSignal ?? false);
        return;
      }
      const response = toResponse(turn as ScriptedAnswer);
      for (const warning of response.warnings) yield { type: 'warning', warning };
      for (let i = 0; i < response.text.length; i += 4)
        yield { type: 'text-delta', delta: response.text.slice(i, i + 4) };
      for (const toolCall of response.toolCalls) yield { type: 'tool-call', toolCall };
      yield { type: 'finish', response };
    },
  };
  return model;
}
