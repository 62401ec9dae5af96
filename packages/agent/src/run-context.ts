import {
  addUsage,
  emptyUsage,
  generateToolCallId,
  ProviderError,
  StreamProtocolError,
  type AnyTool,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatWarning,
  type Message,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from '@toolwire/schema';
import type { Context, Tracer } from '@opentelemetry/api';
import type { AgentEvent } from './agent-event.js';
import { endChatSpan, failSpan, startChatSpan } from './agent-telemetry.js';
import type { AgentStep, StepKind, StepRequest } from './agent-transcript.js';
import { errorRecord, runCancelled } from './agent-errors.js';
import type { ResolvedAgentOptions } from './agent-options.js';

/** Everything one run shares between the loop or pipeline and the helpers. */
export interface RunContext {
  readonly model: ChatModel;
  readonly options: ResolvedAgentOptions;
  readonly tools: readonly AnyTool[];
  readonly toolsByName: ReadonlyMap<string, AnyTool>;
  readonly specs: readonly ToolSpec[];
  /** The input messages, without the agent's system prompt. */
  readonly input: readonly Message[];
  readonly signal: AbortSignal;
  emit(event: AgentEvent): void;
  /**
   * Whether someone reads the events (`stream()`): only then are model calls streamed, since
   * `run()` has no use for deltas and a non-streamed call is cheaper on every provider.
   */
  readonly streaming: boolean;
  readonly steps: AgentStep[];
  usage: Usage;
  /** Staged mode: why the tool provider gave no list (the run goes on without tools). */
  readonly discoveryError?: unknown;
  /**
   * Tools are offered in the prompt and called with the JSON form instead of natively
   * (`toolCalling: 'prompt'`, or `'auto'` once the model turned tools down).
   */
  promptToolCalling: boolean;
  /** Undefined while no OpenTelemetry SDK is registered and no tracer was given. */
  readonly tracer: Tracer | undefined;
  /** The run's span context: model requests and tool calls are its children. */
  readonly traceContext: Context;
}

/**
 * The signal of a run nobody can cancel (`run()` without a signal): never aborted, so model calls
 * are sent without one and nothing is raced against it (linking a signal into each request is
 * work the provider SDK does per call).
 */
export const UNCANCELLABLE: AbortSignal = new AbortController().signal;

/** Request settings every model call of a run carries. */
export function baseRequest(context: RunContext): Partial<ChatRequest> {
  const { temperature, maxOutputTokens, providerOptions } = context.options;
  return {
    ...(context.signal === UNCANCELLABLE ? {} : { signal: context.signal }),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(providerOptions !== undefined ? { providerOptions } : {}),
  };
}

export function describeRequest(request: ChatRequest): StepRequest {
  return {
    tools: (request.tools ?? []).map((tool) => tool.name),
    toolChoice: request.toolChoice ?? null,
    responseFormat: request.responseFormat ? (request.responseFormat.name ?? 'response') : null,
    messageCount: request.messages.length,
  };
}

/** When each step began (kept off the step, which goes out as it is). */
const stepStarts = new WeakMap<AgentStep, number>();

export function beginStep(
  context: RunContext,
  kind: StepKind,
  request: ChatRequest | null,
): AgentStep {
  const step: AgentStep = {
    index: context.steps.length + 1,
    kind,
    startedAt: new Date().toISOString(),
    durationMs: 0,
    request: request ? describeRequest(request) : null,
    response: null,
    stageTools: null,
    toolCalls: [],
    toolResults: [],
    approvals: [],
    repairs: [],
    guardrails: [],
    providerToolCalls: [],
    retries: [],
    usage: emptyUsage(),
    warnings: [],
    fallback: null,
    error: null,
  };
  stepStarts.set(step, performance.now());
  // Reserve the index now so nested helpers see the right step number.
  context.steps.push(step);
  context.emit({ type: 'step-start', step: step.index, kind, request: step.request });
  return step;
}

export function finishStep(context: RunContext, step: AgentStep): AgentStep {
  const now = performance.now();
  step.durationMs = roundMs(now - (stepStarts.get(step) ?? now));
  context.usage = addUsage(context.usage, step.usage);
  context.emit({ type: 'step-finish', step });
  return step;
}

/** Records a model response on its step. */
export function recordResponse(
  context: RunContext,
  step: AgentStep,
  response: ChatResponse,
  object?: unknown,
): void {
  step.response = {
    text: response.text,
    finishReason: response.finishReason,
    rawFinishReason: response.rawFinishReason ?? null,
    modelId: response.modelId,
    responseId: response.responseId ?? null,
    object: object === undefined ? null : object,
  };
  step.usage = addUsage(step.usage, response.usage);
  for (const warning of response.warnings) warn(context, step, warning);
}

export function recordError(step: AgentStep, error: unknown, fallback: string): void {
  step.error = errorRecord(error);
  step.fallback = fallback;
}

/** Records a warning on its step and emits it, once (streams and final responses repeat them). */
export function warn(context: RunContext, step: AgentStep, warning: ChatWarning): void {
  if (step.warnings.some((w) => w.type === warning.type && w.message === warning.message)) return;
  step.warnings.push(warning);
  context.emit({ type: 'warning', step: step.index, warning });
}

export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * One model call of the loop. When the run is streamed to a caller it streams: text and
 * reasoning are forwarded as events (when `emitText`) and the final response is returned; tool
 * calls are emitted by the caller once their ids are settled. When nobody reads events (`run()`)
 * it is one non-streamed `generate`. Abort is honoured even when an adapter does not react to
 * the signal: the call is raced against it. A retryable provider error is retried (see
 * `withRetries`) unless text was already streamed.
 */
export async function callModel(
  context: RunContext,
  step: AgentStep,
  request: ChatRequest,
  emitText: boolean,
  model: ChatModel = context.model,
): Promise<ChatResponse> {
  if (!context.streaming) return generateModel(context, step, request, model);
  return withRetries(context, step, model, request, async (progress) => {
    const { signal } = context;
    const iterator = model.stream(request)[Symbol.asyncIterator]();
    let response: ChatResponse | undefined;
    try {
      for (;;) {
        const next = await raceAbort(iterator.next(), signal);
        if (next.done) break;
        const part = next.value;
        switch (part.type) {
          case 'text-delta':
            if (emitText) {
              progress.emitted = true;
              context.emit({ type: 'text-delta', step: step.index, delta: part.delta });
            }
            break;
          case 'reasoning-delta':
            if (emitText) {
              progress.emitted = true;
              context.emit({ type: 'reasoning-delta', step: step.index, delta: part.delta });
            }
            break;
          case 'tool-call-start':
            if (emitText)
              context.emit({
                type: 'tool-call-start',
                step: step.index,
                id: part.id,
                name: part.name,
              });
            break;
          case 'tool-call-delta':
            if (emitText)
              context.emit({
                type: 'tool-call-delta',
                step: step.index,
                id: part.id,
                name: part.name,
                argumentsDelta: part.argumentsDelta,
              });
            break;
          case 'warning':
            warn(context, step, part.warning);
            break;
          case 'finish':
            response = part.response;
            break;
          default:
            break;
        }
      }
    } catch (error) {
      // Stop the adapter's stream without waiting for it: it may be stuck on a dead socket.
      if (signal.aborted) iterator.return?.().catch(() => undefined);
      throw error;
    }
    if (!response) {
      throw new StreamProtocolError({
        provider: model.provider,
        message: `the ${model.provider} stream ended without a finish part`,
      });
    }
    return response;
  });
}

/** One non-streamed model call, with retries (the staged pipeline's constrained stages, and `run()`). */
export async function generateModel(
  context: RunContext,
  step: AgentStep,
  request: ChatRequest,
  model: ChatModel = context.model,
): Promise<ChatResponse> {
  return withRetries(context, step, model, request, () =>
    raceAbort(model.generate(request), context.signal),
  );
}

/**
 * Runs a model call, sending it again after a retryable provider error (rate limit, overload,
 * 5xx, dropped connection) up to `maxRetries` times: after the provider's retry-after when it
 * gave one, else after `retryDelayMs` doubling per attempt. Adapters do not retry by default, so
 * this is the one place retries happen. A call that already streamed text is not retried (the
 * consumer has seen it); each retried error is kept on the step (`retries`).
 */
async function withRetries(
  context: RunContext,
  step: AgentStep,
  model: ChatModel,
  request: ChatRequest,
  attempt: (progress: { emitted: boolean }) => Promise<ChatResponse>,
): Promise<ChatResponse> {
  const { signal, options } = context;
  for (let retry = 0; ; retry++) {
    if (signal.aborted) throw runCancelled(signal);
    const progress = { emitted: false };
    // One span per request sent (a retry is another request).
    const span = startChatSpan(context.tracer, context.traceContext, model, request);
    try {
      const response = await attempt(progress);
      endChatSpan(span, response);
      return response;
    } catch (error) {
      failSpan(span, error);
      if (signal.aborted) throw runCancelled(signal);
      if (progress.emitted || retry >= options.maxRetries || !isRetryable(error)) throw error;
      step.retries.push(errorRecord(error));
      await sleep(retryDelay(error, retry, options.retryDelayMs), signal);
    }
  }
}

const MAX_RETRY_DELAY_MS = 60_000;

function isRetryable(error: unknown): boolean {
  return ProviderError.isProviderError(error) && error.retryable;
}

function retryDelay(error: unknown, retry: number, baseMs: number): number {
  const asked = (error as { retryAfterMs?: unknown }).retryAfterMs;
  const delay = typeof asked === 'number' && asked >= 0 ? asked : baseMs * 2 ** retry;
  return Math.min(delay, MAX_RETRY_DELAY_MS);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return raceAbort(
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }),
    signal,
  );
}

/** Settles with `promise`, or rejects as soon as `signal` aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal === UNCANCELLABLE) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(runCancelled(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(runCancelled(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? runCancelled(signal) : error);
      },
    );
  });
}

/**
 * Gives every call an id no other call of the conversation has. Some servers send the same id
 * twice (or reuse ids across turns); results would then answer the wrong call and providers
 * reject the transcript. The model's ids are kept wherever they are unique.
 */
export function withUniqueIds(
  context: RunContext,
  step: AgentStep,
  calls: readonly ToolCall[],
  history: readonly Message[],
): ToolCall[] {
  const used = new Set(
    history.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])),
  );
  return calls.map((call) => {
    if (!used.has(call.id) && call.id !== '') {
      used.add(call.id);
      return call;
    }
    const id = generateToolCallId();
    used.add(id);
    warn(context, step, {
      type: 'other',
      message: `tool call id ${JSON.stringify(call.id)} (${call.name}) was already used; the call got id "${id}"`,
    });
    return { ...call, id };
  });
}

export function withSystem(context: RunContext, messages: readonly Message[]): Message[] {
  const system = context.options.system;
  return system === undefined ? [...messages] : [{ role: 'system', content: system }, ...messages];
}
