import type {
  AnyTool,
  ChatModel,
  ChatRequest,
  InvalidToolArgumentsError,
  Message,
  NoSuchToolError,
  RemoteMcpServer,
  ToolCall,
  ToolChoice,
  ToolSpec,
} from '@toolwire/schema';
import type { Tracer } from '@opentelemetry/api';
import type { AgentMode, AgentStep } from './agent-transcript.js';
import type { ToolInputGuardrail, ToolOutputGuardrail } from './guardrails.js';
import type { StopCondition } from './stop-conditions.js';

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
  /** The validated arguments the tool would run with (for a provider-run call: as the provider sent them). */
  arguments: Record<string, unknown>;
  signal: AbortSignal;
  /**
   * Set for a call the provider runs on its side (a remote MCP server's tool): the server it
   * belongs to. The decision goes back to the provider, which runs or skips the call.
   */
  provider?: { server: string | undefined };
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

/** What `prepareStep` is told about the step about to be sent. */
export interface PrepareStepRequest {
  /** 1-based number of the model call in the tool loop. */
  step: number;
  /** The steps so far. */
  steps: readonly AgentStep[];
  /** The conversation so far (without the system prompt). */
  messages: readonly Message[];
  /** The model the run uses. */
  model: ChatModel;
  signal: AbortSignal;
}

/** Changes for one step; what is left out stays as the run has it. */
export interface StepSettings {
  /** Another model for this step. */
  model?: ChatModel;
  /**
   * Only these tools may be called in this step. Every tool stays declared (so the provider's
   * prompt cache holds) and the choice is narrowed with an `allowed` tool choice; a call outside
   * the set gets a tool error.
   */
  activeTools?: readonly string[];
  /** The tool choice of this step (with `activeTools`: `auto` or `required` within the set). */
  toolChoice?: ToolChoice;
  /** The system prompt of this step. */
  system?: string;
}

/** Where the agent's OpenTelemetry spans go (GenAI semantic conventions). */
export interface AgentTelemetry {
  /** Default: the global tracer provider's `@toolwire/agent` tracer (no-op without an SDK). */
  tracer?: Tracer;
  /** Named in `invoke_agent` spans (`gen_ai.agent.name`); default `toolwire-agent`. */
  agentName?: string;
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
  /** Called before each step of the tool loop; may change the model, tools, tool choice or system prompt. */
  prepareStep?: (
    request: PrepareStepRequest,
  ) => StepSettings | undefined | void | Promise<StepSettings | undefined | void>;
  /** Only these tools may be called (for the whole run; `prepareStep` may narrow it per step). */
  activeTools?: readonly string[];
  /**
   * Ends the run after a step when a condition holds (besides `maxSteps`): `stepCountIs(n)`,
   * `hasToolCall(name)`, or your own. The run then ends without another model call.
   */
  stopWhen?: StopCondition | readonly StopCondition[];
  /** Checks before a tool runs (may refuse it) and after (may rewrite its result); the model is told. */
  guardrails?: { input?: readonly ToolInputGuardrail[]; output?: readonly ToolOutputGuardrail[] };
  /**
   * Without an `approve` hook, a call that needs approval ends the run instead of running:
   * `finishReason: 'needs-approval'`, the pending approvals, and a JSON `state` that
   * `agent.resume(state, decisions)` continues, in this process or another.
   */
  pauseForApproval?: boolean;
  /** Remote MCP servers the provider calls for the model (see `ChatRequest.mcpServers`). */
  mcpServers?: readonly RemoteMcpServer[];
  /** OpenTelemetry spans: one per run, per model request and per tool call. */
  telemetry?: AgentTelemetry;
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
  prepareStep: AgentOptions['prepareStep'];
  activeTools: readonly string[] | undefined;
  stopWhen: readonly StopCondition[];
  guardrails: { input: readonly ToolInputGuardrail[]; output: readonly ToolOutputGuardrail[] };
  pauseForApproval: boolean;
  mcpServers: readonly RemoteMcpServer[] | undefined;
  /** The tracer given in `telemetry`; without one, the global provider's (see `runTracer`). */
  tracer: Tracer | undefined;
  agentName: string;
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
