/** The wire formats the fake server speaks. */
export type FakeProviderKind = 'openai' | 'openai-responses' | 'anthropic' | 'ollama' | 'google';

export interface FakeToolCall {
  /** Omitted: the server makes one up (`call_…` / `toolu_…`). */
  id?: string;
  name: string;
  /** An object, or a raw string sent verbatim (for malformed or truncated arguments). */
  arguments: unknown;
}

export interface FakeUsage {
  /** All input tokens, cached ones included (Anthropic's `input_tokens` is rendered without them). */
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

export interface FakeChunking {
  /** Characters per text (and reasoning) delta; default 4. */
  textChunkSize?: number;
  /** Characters per argument fragment; default 7. */
  argumentsChunkSize?: number;
  /** OpenAI: send `id`/`type`/`name` only in a call's first delta (default true, as OpenAI does). */
  omitIdAfterFirst?: boolean;
  /** OpenAI: leave `index` out of tool-call deltas (some compatible servers do). */
  omitIndex?: boolean;
  /** Send each call whole (id, name and complete arguments) in one delta (xAI does). */
  wholeCallInOneChunk?: boolean;
}

/** A scripted answer: what the model "says". */
export interface FakeAnswer {
  text?: string;
  reasoning?: string;
  toolCalls?: FakeToolCall[];
  /** Default: `tool-calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool-calls';
  usage?: FakeUsage;
  chunking?: FakeChunking;
}

export type StaticFakeTurn =
  | FakeAnswer
  /** An HTTP error; `body` defaults to the provider's error shape for the status. */
  | { error: { status: number; body?: unknown; headers?: Record<string, string> } }
  /** Replay a recorded wire file verbatim. */
  | { raw: { contentType: string; body: string } }
  /** Accept the request and never answer (abort tests). */
  | { hang: true }
  /** Start answering (`turn`, default a short text), then destroy the socket after `dropAfter` chunks. */
  | { dropAfter: number; turn?: FakeAnswer }
  /** Start answering, then go silent (socket left open) after `stallAfter` chunks (idle-timeout tests). */
  | { stallAfter: number; turn?: FakeAnswer };

/** A request the fake server received (headers lower-cased; body parsed as JSON when it is JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read deep into request bodies
  body: any;
}

/** A turn, or a function that scripts the turn from the request it answers. */
export type FakeTurn = StaticFakeTurn | ((request: RecordedRequest) => StaticFakeTurn);

/** What `dropAfter` / `stallAfter` stream when no turn is given. */
export const DEFAULT_PARTIAL_ANSWER: FakeAnswer = {
  text: 'This answer is long enough to be cut off part of the way through.',
  usage: { inputTokens: 10, outputTokens: 12 },
};

export function isAnswer(turn: StaticFakeTurn): turn is FakeAnswer {
  return (
    !('error' in turn) &&
    !('raw' in turn) &&
    !('hang' in turn) &&
    !('dropAfter' in turn) &&
    !('stallAfter' in turn)
  );
}

export function finishReasonOf(answer: FakeAnswer): 'stop' | 'length' | 'tool-calls' {
  return (
    answer.finishReason ?? (answer.toolCalls && answer.toolCalls.length > 0 ? 'tool-calls' : 'stop')
  );
}

export function argumentsText(args: unknown): string {
  return typeof args === 'string' ? args : JSON.stringify(args ?? {});
}

/** Splits text into pieces of `size` characters ([] for ''). */
export function chunkText(text: string, size: number): string[] {
  const pieces: string[] = [];
  const step = Math.max(1, Math.floor(size));
  for (let i = 0; i < text.length; i += step) pieces.push(text.slice(i, i + step));
  return pieces;
}

/** Per-request facts a renderer needs. */
export interface RenderContext {
  /** The model the request asked for. */
  model: string;
  /** 1-based number of the request this turn answers (for made-up ids). */
  sequence: number;
  /** The parsed request body. */
  body: Record<string, unknown>;
}

/** Renders scripted turns in one provider's wire format. */
export interface WireRenderer {
  /** The request path this provider serves (a description when `matches` is given). */
  readonly path: string;
  /** Whether a request path is served, for providers whose path carries the model (Gemini). */
  matches?(path: string): boolean;
  /** The model named by the path, for providers whose path carries it. */
  modelOf?(path: string): string | undefined;
  /** Whether the request asked for a stream (`url` is the full request URL, query included). */
  isStream(body: Record<string, unknown>, url: string): boolean;
  json(answer: FakeAnswer, context: RenderContext): unknown;
  /** Stream content type and the already-framed chunks (SSE events or NDJSON lines). */
  stream(answer: FakeAnswer, context: RenderContext): { contentType: string; chunks: string[] };
  /** The provider's error body for a status, with a message. */
  errorBody(status: number, message: string): unknown;
}
