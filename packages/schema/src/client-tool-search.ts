import type { ChatRequest, ChatResponse, ChatStreamPart, ChatWarning } from './chat-model.js';
import { addUsage } from './chat-model.js';
import { describeWithExamples } from './plain-function-tool.js';
import type { ToolSpec } from './define-tool.js';
import { UsageError } from './errors.js';
import type { JsonSchema } from './json-schema.js';
import type { AssistantMessage, Message, ToolMessage } from './message.js';
import type { ProviderToolCall } from './provider-tools.js';
import { toolCallArgumentsObject, type ToolCall } from './tool-call.js';
import type { ToolChoice } from './tool-choice.js';
import { textResult, type ToolResult } from './tool-result.js';
import { ToolSearchIndex } from './tool-search.js';

/** The `providerMetadata` key under which a response keeps what the emulation needs to replay. */
export const CLIENT_TOOL_SEARCH_KEY = 'toolwire-tool-search';

export interface ClientToolSearchOptions {
  /** Matches per search, each with its input schema (default 3). */
  limit?: number;
  /** Search rounds answered within one call before the model's answer is returned as it is (default 4). */
  maxRounds?: number;
}

/** What an emulated turn keeps to be replayed exactly on the next request. */
interface ReplayRecord {
  /** The search rounds answered inside the call: assistant turns and their search results. */
  hidden: Message[];
  /** Text the model wrote in those rounds (also at the start of the response's text). */
  precedingText: string;
  /** Calls made through `call_tool`, by id: the arguments the model wrote. */
  proxied: Record<string, string>;
  /** Searches the model made beside real calls in its last round, answered here. */
  answered?: { calls: ToolCall[]; results: ToolResult[] };
}

const SEARCH_TOOL = 'search_tools';
const CALL_TOOL = 'call_tool';

const SEARCH_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What you want to do, in a few words' },
  },
  required: ['query'],
  additionalProperties: false,
};

const CALL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'The name of a tool search_tools found' },
    // JSON text, not an object: some providers reject an object schema without properties.
    arguments: {
      type: 'string',
      description: "The arguments as JSON text that matches the tool's input schema",
    },
  },
  required: ['name', 'arguments'],
};

/** Whether a request has deferred tools (then the emulation has work to do). */
export function hasDeferredTools(request: ChatRequest): boolean {
  return (request.tools ?? []).some((tool) => tool.deferred === true);
}

const indexes = new WeakMap<readonly ToolSpec[], ToolSearchIndex<ToolSpec>>();

interface Session {
  request: ChatRequest;
  deferred: Map<string, ToolSpec>;
  index: ToolSearchIndex<ToolSpec>;
  limit: number;
  maxRounds: number;
}

/**
 * Tool search for providers without their own. Deferred tools are not declared: the model gets
 * `search_tools` (the BM25 `ToolSearchIndex` over the deferred tools, answered here, inside the
 * same `generate`/`stream` call) and `call_tool` (a found tool, by name, with its arguments),
 * which comes back to the caller as an ordinary call of the real tool. The declared tools are the
 * same on every turn and earlier turns are replayed exactly as they were sent (the search rounds
 * are kept in the response's `providerMetadata`), so the prompt prefix stays byte-stable and the
 * provider's prompt cache holds while the model discovers tools.
 */
export class ClientToolSearch {
  private readonly session: Session | undefined;

  private readonly original: ChatRequest;

  /** `generate` of an adapter without tool search: `once` sends one request to the provider. */
  static generate(
    request: ChatRequest,
    once: (request: ChatRequest) => Promise<ChatResponse>,
    options?: ClientToolSearchOptions,
  ): Promise<ChatResponse> {
    return new ClientToolSearch(request, options).generate(once);
  }

  /** `stream` of an adapter without tool search; nothing happens until the parts are read. */
  static stream(
    request: ChatRequest,
    once: (request: ChatRequest) => AsyncIterable<ChatStreamPart>,
    options?: ClientToolSearchOptions,
  ): AsyncIterable<ChatStreamPart> {
    return {
      [Symbol.asyncIterator]: () =>
        new ClientToolSearch(request, options).stream(once)[Symbol.asyncIterator](),
    };
  }

  constructor(request: ChatRequest, options: ClientToolSearchOptions = {}) {
    const tools = request.tools ?? [];
    const deferredList = tools.filter((tool) => tool.deferred === true);
    // Earlier emulated turns are replayed as sent even when no tool is deferred any more.
    this.original = request.messages.some(
      (message) => message.role === 'assistant' && replayRecordOf(message),
    )
      ? { ...request, messages: expandMessages(request.messages) }
      : request;
    if (deferredList.length === 0) return;
    for (const tool of tools) {
      if (tool.name === SEARCH_TOOL || tool.name === CALL_TOOL)
        throw new UsageError({
          field: 'request.tools',
          message: `a tool is named "${tool.name}", which the tool search for deferred tools uses; rename it`,
        });
    }
    let index = indexes.get(tools);
    if (!index) {
      index = new ToolSearchIndex(deferredList);
      indexes.set(tools, index);
    }
    const visible = tools.filter((tool) => tool.deferred !== true);
    const search: ToolSpec = {
      name: SEARCH_TOOL,
      description: `Finds tools to call: ${deferredList.length} more ${deferredList.length === 1 ? 'tool is' : 'tools are'} available but not listed. Search them by what you want to do (plain words). Returns each match's name, description and input schema; call a match with ${CALL_TOOL}.`,
      inputSchema: SEARCH_SCHEMA,
    };
    const call: ToolSpec = {
      name: CALL_TOOL,
      description: `Calls a tool that ${SEARCH_TOOL} found, by its name, with arguments that match its input schema.`,
      inputSchema: CALL_SCHEMA,
    };
    const deferred = new Map(deferredList.map((tool) => [tool.name, tool]));
    const toolChoice = mapChoice(request.toolChoice, deferred);
    this.session = {
      request: {
        ...request,
        tools: [...visible, search, call],
        ...(toolChoice !== undefined ? { toolChoice } : {}),
        messages: expandMessages(request.messages),
      },
      deferred,
      index,
      limit: options.limit ?? 3,
      maxRounds: options.maxRounds ?? 4,
    };
  }

  /** The request of the first round as it goes to the provider (the original when nothing is deferred). */
  get firstRequest(): ChatRequest {
    return this.session?.request ?? this.original;
  }

  /** One `generate`, the search rounds answered in between. */
  async generate(generate: (request: ChatRequest) => Promise<ChatResponse>): Promise<ChatResponse> {
    const session = this.session;
    if (!session) return generate(this.original);
    const rounds = new Rounds(session);
    for (;;) {
      const response = await generate(rounds.request());
      if (!rounds.next(response)) return rounds.finish(response);
    }
  }

  /** One `stream`, the search rounds answered in between; parts as the provider sends them. */
  stream(
    stream: (request: ChatRequest) => AsyncIterable<ChatStreamPart>,
  ): AsyncIterable<ChatStreamPart> {
    // Nothing deferred: the provider's stream itself, without a generator in between.
    const session = this.session;
    return session ? this.streamRounds(session, stream) : stream(this.original);
  }

  private async *streamRounds(
    session: Session,
    stream: (request: ChatRequest) => AsyncIterable<ChatStreamPart>,
  ): AsyncGenerator<ChatStreamPart> {
    const rounds = new Rounds(session);
    for (;;) {
      let response: ChatResponse | undefined;
      for await (const part of stream(rounds.request())) {
        if (part.type === 'finish') response = part.response;
        else if (part.type === 'tool-call') continue;
        else if (
          (part.type === 'tool-call-start' || part.type === 'tool-call-delta') &&
          (part.name === SEARCH_TOOL || part.name === CALL_TOOL)
        )
          continue;
        else yield part;
      }
      if (!response) return; // the adapter threw or ended without finish: not ours to paper over
      if (rounds.next(response)) {
        for (const call of rounds.lastSearches()) yield { type: 'provider-tool-call', call };
        continue;
      }
      const final = rounds.finish(response);
      for (const call of rounds.lastSearches()) yield { type: 'provider-tool-call', call };
      for (const [index, toolCall] of final.toolCalls.entries()) {
        if (rounds.isProxied(toolCall.id))
          yield { type: 'tool-call-start', id: toolCall.id, name: toolCall.name, index };
        yield { type: 'tool-call', toolCall };
      }
      yield { type: 'finish', response: final };
      return;
    }
  }
}

/** The state of one emulated call across its rounds. */
class Rounds {
  private readonly hidden: Message[] = [];
  private text = '';
  private usage: ChatResponse['usage'] | undefined;
  private readonly warnings: ChatWarning[] = [];
  private readonly providerCalls: ProviderToolCall[] = [];
  private searches: ProviderToolCall[] = [];
  private readonly proxied: Record<string, string> = {};
  private round = 0;

  private readonly session: Session;

  constructor(session: Session) {
    this.session = session;
  }

  request(): ChatRequest {
    const base = this.session.request;
    return this.hidden.length === 0
      ? base
      : { ...base, messages: [...base.messages, ...this.hidden] };
  }

  /** Takes a round's answer; true when it only searched and another round follows. */
  next(response: ChatResponse): boolean {
    this.absorb(response);
    const calls = response.toolCalls;
    const searchOnly = calls.length > 0 && calls.every((call) => call.name === SEARCH_TOOL);
    if (!searchOnly || this.round >= this.session.maxRounds) return false;
    this.round++;
    const results = calls.map((call) => this.answer(call));
    this.hidden.push(assistantOf(response), { role: 'tool', results });
    this.text += response.text;
    return true;
  }

  /** The searches answered in the last round (provider-run calls, for the record). */
  lastSearches(): ProviderToolCall[] {
    const out = this.searches;
    this.searches = [];
    return out;
  }

  isProxied(id: string): boolean {
    return id in this.proxied;
  }

  finish(response: ChatResponse): ChatResponse {
    const answered: NonNullable<ReplayRecord['answered']> = { calls: [], results: [] };
    const toolCalls: ToolCall[] = [];
    for (const call of response.toolCalls) {
      if (call.name === SEARCH_TOOL) {
        answered.calls.push(call);
        answered.results.push(this.answer(call));
      } else if (call.name === CALL_TOOL) toolCalls.push(this.unwrap(call));
      else toolCalls.push(call);
    }
    const record: ReplayRecord = {
      hidden: this.hidden,
      precedingText: this.text,
      proxied: this.proxied,
      ...(answered.calls.length > 0 ? { answered } : {}),
    };
    const keep =
      record.hidden.length > 0 || Object.keys(record.proxied).length > 0 || record.answered;
    const out: ChatResponse = {
      ...response,
      text: this.text + response.text,
      toolCalls,
      usage: this.usage ?? response.usage,
      warnings: this.warnings,
    };
    if (this.providerCalls.length > 0) out.providerToolCalls = this.providerCalls;
    if (keep)
      out.providerMetadata = { ...response.providerMetadata, [CLIENT_TOOL_SEARCH_KEY]: record };
    return out;
  }

  private absorb(response: ChatResponse): void {
    this.usage = this.usage ? addUsage(this.usage, response.usage) : response.usage;
    for (const warning of response.warnings) {
      if (!this.warnings.some((w) => w.type === warning.type && w.message === warning.message))
        this.warnings.push(warning);
    }
    this.providerCalls.push(...(response.providerToolCalls ?? []));
  }

  private answer(call: ToolCall): ToolResult {
    const args = toolCallArgumentsObject(call);
    const query = typeof args?.query === 'string' ? args.query : '';
    const matches =
      query.trim() === ''
        ? []
        : this.session.index.search(query, { limit: this.session.limit }).map(({ tool }) => ({
            name: tool.name,
            description: describeWithExamples(tool),
            inputSchema: tool.inputSchema,
          }));
    const text = JSON.stringify(
      query.trim() === ''
        ? { tools: [], error: 'give a query: what you want to do, in a few words' }
        : matches.length === 0
          ? { tools: [], note: 'no tool matches; try other words' }
          : { tools: matches },
    );
    const providerCall: ProviderToolCall = {
      id: call.id,
      name: SEARCH_TOOL,
      arguments: call.arguments,
      result: { text, isError: query.trim() === '' },
    };
    this.providerCalls.push(providerCall);
    this.searches.push(providerCall);
    return textResult(call.id, SEARCH_TOOL, text);
  }

  /** `call_tool({ name, arguments })` as a call of the named tool (kept as it is when unreadable). */
  private unwrap(call: ToolCall): ToolCall {
    const args = toolCallArgumentsObject(call);
    const name = args?.name;
    if (typeof name !== 'string' || name === '') return call;
    this.proxied[call.id] =
      typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
    // JSON text as asked, or an object from a model that sent one anyway.
    const inner = args?.arguments;
    return {
      id: call.id,
      name,
      arguments: inner === undefined || inner === null ? {} : inner,
      ...(call.providerMetadata ? { providerMetadata: call.providerMetadata } : {}),
    };
  }
}

function assistantOf(response: ChatResponse): AssistantMessage {
  const message: AssistantMessage = {
    role: 'assistant',
    content: response.text,
    toolCalls: response.toolCalls,
  };
  if (response.reasoning && response.reasoning.length > 0) message.reasoning = response.reasoning;
  if (response.providerMetadata) message.providerMetadata = response.providerMetadata;
  return message;
}

function mapChoice(
  choice: ToolChoice | undefined,
  deferred: ReadonlyMap<string, ToolSpec>,
): ToolChoice | undefined {
  if (choice === undefined || typeof choice === 'string') return choice;
  if (choice.type === 'tool')
    return deferred.has(choice.toolName) ? { type: 'tool', toolName: CALL_TOOL } : choice;
  const names = choice.toolNames.filter((name) => !deferred.has(name));
  if (names.length < choice.toolNames.length) names.push(SEARCH_TOOL, CALL_TOOL);
  return { ...choice, toolNames: names };
}

function replayRecordOf(message: AssistantMessage): ReplayRecord | undefined {
  const record = message.providerMetadata?.[CLIENT_TOOL_SEARCH_KEY];
  return record !== null && typeof record === 'object' ? (record as ReplayRecord) : undefined;
}

/**
 * The conversation as the provider saw it: each emulated turn's search rounds put back before
 * it, its `call_tool` calls restored as the model wrote them, and searches it answered beside
 * real calls restored with their results.
 */
function expandMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let pending: { proxied: Record<string, string>; answered: ToolResult[] } | undefined;
  for (const message of messages) {
    if (message.role === 'assistant') {
      if (pending && pending.answered.length > 0)
        out.push({ role: 'tool', results: pending.answered });
      pending = undefined;
      const record = replayRecordOf(message);
      if (!record) {
        out.push(message);
        continue;
      }
      out.push(...record.hidden);
      const { [CLIENT_TOOL_SEARCH_KEY]: _record, ...metadata } = message.providerMetadata ?? {};
      const calls = (message.toolCalls ?? []).map((call) =>
        record.proxied[call.id] !== undefined
          ? { id: call.id, name: CALL_TOOL, arguments: record.proxied[call.id] }
          : call,
      );
      calls.push(...(record.answered?.calls ?? []));
      const restored: AssistantMessage = {
        ...message,
        content: message.content.startsWith(record.precedingText)
          ? message.content.slice(record.precedingText.length)
          : message.content,
        toolCalls: calls,
      };
      if (Object.keys(metadata).length > 0) restored.providerMetadata = metadata;
      else delete restored.providerMetadata;
      if (calls.length === 0) delete restored.toolCalls;
      out.push(restored);
      pending = { proxied: record.proxied, answered: record.answered?.results ?? [] };
      continue;
    }
    if (message.role === 'tool' && pending) {
      const proxied = pending.proxied;
      const results = message.results.map((result) =>
        proxied[result.toolCallId] !== undefined ? { ...result, toolName: CALL_TOOL } : result,
      );
      const tool: ToolMessage = { ...message, results: [...results, ...pending.answered] };
      out.push(tool);
      pending = undefined;
      continue;
    }
    if (pending && pending.answered.length > 0)
      out.push({ role: 'tool', results: pending.answered });
    pending = undefined;
    out.push(message);
  }
  if (pending && pending.answered.length > 0) out.push({ role: 'tool', results: pending.answered });
  return out;
}
