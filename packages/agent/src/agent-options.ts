import type {
  AnyTool,
  ChatModel,
  ChatRequest,
  InvalidToolArgumentsError,
  Message,
  NoSuchToolError,
  ToolCall,
  ToolSpec,
} from '@toolwire/schema';
import type { AgentMode } from './agent-transcript.js';

/** Which tool list a mode needs from a `ToolProvider` (`staged` uses the `direct` list). */
export type ToolListMode = 'direct' | 'code' | 'gateway';

/**
 * Gives the tools for a run, asked once per run (so a registry's changed tool list is picked up):
 * - `direct`: one tool per upstream tool (`registry.asTools({ mode: 'tools' })` + native tools);
 * - `code`: code mode's `execute_code` plus the excluded tools (`createCodeModeTools(...)`);
 * - `gateway`: one list/execute tool per server (`registry.asTools({ mode: 'gateway' })`).
 */
export type ToolProvider = (request: {
  mode: ToolListMode;
  signal: AbortSignal;
}) => readonly AnyTool[] | Promise<readonly AnyTool[]>;

export interface ApprovalRequest {
  toolCall: ToolCall;
  tool: ToolSpec;
  /** The validated arguments the tool would run with. */
  arguments: Record<string, unknown>;
  signal: AbortSignal;
}

/** `true`/`false`, or an object with a reason the model is told when the call is refused. */
export type ApprovalDecision = boolean | { approved: boolean; reason?: string };

export interface RepairToolCallRequest {
  /** The call as the model made it. */
  toolCall: ToolCall;
  /** Why it cannot be used: an unknown tool name or arguments that do not validate. */
  error: InvalidToolArgumentsError | NoSuchToolError;
  tools: readonly ToolSpec[];
  /** The conversation up to and including the assistant turn that made the call. */
  messages: readonly Message[];
  signal: AbortSignal;
}

export interface AgentOptions {
  model: ChatModel;
  /** The tools, or a provider asked for the list that fits the mode (default: no tools). */
  tools?: readonly AnyTool[] | ToolProvider;
  /** Default `direct`. */
  mode?: AgentMode;
  system?: string;
  /**
   * Most model calls with tools in one run (default 10). When the last one still calls tools,
   * one more call is made with tool use switched off, so the run always ends with an answer.
   */
  maxSteps?: number;
  /**
   * Asked before a call of a tool that needs approval (default: tools whose annotations say
   * `destructiveHint: true`). A refusal goes back to the model as a `permissionDenied` tool
   * error. Without this hook no approval is asked.
   */
  approve?: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;
  /** Which calls need approval; default: `tool.annotations?.destructiveHint === true`. */
  needsApproval?: (tool: AnyTool, call: ToolCall) => boolean;
  /**
   * Gets a call that names an unknown tool or has invalid arguments, and may return a fixed
   * call (re-validated; the id is kept). Return null to send the error to the model instead.
   */
  repairToolCall?: (
    request: RepairToolCallRequest,
  ) => ToolCall | null | undefined | Promise<ToolCall | null | undefined>;
  /**
   * How often a model call is sent again after a retryable provider error (rate limit, overload,
   * 5xx, connection) before the run fails; default 2. The provider's retry-after is honoured.
   */
  maxRetries?: number;
  /** Wait before the first retry when the provider gave no retry-after, doubled each time (default 500 ms). */
  retryDelayMs?: number;
  /** Most tool calls running at once (default 8). */
  concurrency?: number;
  /** Per-call time limit; a call that exceeds it gets an `executionTimeout` tool error. */
  toolTimeoutMs?: number;
  temperature?: number;
  maxOutputTokens?: number;
  providerOptions?: ChatRequest['providerOptions'];
  /**
   * How the model calls tools: `native` (default) through the provider's tool calling;
   * `prompt`: the tool list goes in the system prompt and the model answers with a JSON call
   * (the staged pipeline's form), repaired and validated, for models without tool calling;
   * `auto`: native, switching to `prompt` for the rest of the run when the model has no tool
   * calling (`capabilities.toolCalling: false`, or the provider answers that it does not support
   * tools, an `UnsupportedFeatureError`).
   */
  toolCalling?: ToolCallingMode;
}

export type ToolCallingMode = 'native' | 'prompt' | 'auto';

export interface ResolvedAgentOptions {
  toolCalling: ToolCallingMode;
  mode: AgentMode;
  system: string | undefined;
  maxSteps: number;
  approve: AgentOptions['approve'];
  needsApproval: (tool: AnyTool, call: ToolCall) => boolean;
  repairToolCall: AgentOptions['repairToolCall'];
  maxRetries: number;
  retryDelayMs: number;
  concurrency: number;
  toolTimeoutMs: number | undefined;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  providerOptions: ChatRequest['providerOptions'];
}
