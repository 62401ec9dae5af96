import type {
  ChatWarning,
  FinishReason,
  Message,
  ProviderToolCall,
  ToolCall,
  ToolChoice,
  ToolResult,
  Usage,
} from '@toolwire/schema';
import type { GuardrailRecord } from './guardrails.js';

/** How the agent lets the model use tools; the CLI's `--mode`. */
export type AgentMode = 'direct' | 'code' | 'gateway' | 'staged';

/**
 * What one step of a run was:
 * - `tool-loop`: a model call of the tool loop, with the tool calls it made and their results;
 * - `final-answer`: the one extra call after the step limit, with tool use switched off;
 * - `discovery`, `selection`, `function-calling`, `execution`, `interpretation`: the stages of
 *   the staged pipeline (seed 000);
 * - `direct-answer`: the staged pipeline's answer without tools (no tool selected, or a fallback).
 */
export type StepKind =
  | 'tool-loop'
  | 'final-answer'
  | 'discovery'
  | 'selection'
  | 'function-calling'
  | 'execution'
  | 'interpretation'
  | 'direct-answer';

/**
 * Why a run ended: the model's finish reason; `max-steps` when the step limit cut it short;
 * `stop-condition` when a `stopWhen` condition held; `needs-approval` when it paused for approvals
 * (`pauseForApproval`; resume it with `agent.resume`).
 */
export type AgentFinishReason = FinishReason | 'max-steps' | 'stop-condition' | 'needs-approval';

/** What a step asked the model for (every key is always present, so the JSON shape is stable). */
export interface StepRequest {
  /** Names of the tools declared in the request ([] when none were sent). */
  tools: string[];
  /** The tool choice sent, or null when the request carried none. */
  toolChoice: ToolChoice | null;
  /** Name of the JSON schema asked for (structured output), or null. */
  responseFormat: string | null;
  /** How many messages were sent, the system prompt included. */
  messageCount: number;
}

export interface StepResponse {
  text: string;
  finishReason: FinishReason;
  rawFinishReason: string | null;
  modelId: string;
  responseId: string | null;
  /** The structured output, for stages that asked for one (after JSON repair and validation). */
  object: unknown;
}

export interface ApprovalRecord {
  toolCallId: string;
  toolName: string;
  approved: boolean;
  reason: string | null;
}

export interface RepairRecord {
  toolCallId: string;
  /** The call as the model made it. */
  original: ToolCall;
  /** What the repair hook returned (null: it gave up and the error went to the model). */
  repaired: ToolCall | null;
  /** Why the original call could not be used. */
  error: string;
}

/** An error in plain-object form (Error objects do not serialise to JSON). */
export interface ErrorRecord {
  name: string;
  code: string | null;
  message: string;
}

/** One step of a run. Every key is always present; absent values are null or []. */
export interface AgentStep {
  /** 1-based position in the run. */
  index: number;
  kind: StepKind;
  /** ISO time the step started. */
  startedAt: string;
  durationMs: number;
  /** The model request, or null for steps without a model call (discovery, execution). */
  request: StepRequest | null;
  response: StepResponse | null;
  /** Tools a stage produced: discovery lists every tool, selection the chosen ones; else null. */
  stageTools: string[] | null;
  toolCalls: ToolCall[];
  /** In call order; each has `durationMs`. */
  toolResults: ToolResult[];
  approvals: ApprovalRecord[];
  repairs: RepairRecord[];
  /** Refusals and rewrites by guardrails. */
  guardrails: GuardrailRecord[];
  /** Calls the provider ran (or asked approval for) on its side. */
  providerToolCalls: ProviderToolCall[];
  /** Retryable provider errors after which the model call was sent again. */
  retries: ErrorRecord[];
  usage: Usage;
  warnings: ChatWarning[];
  /** The fallback a staged stage took, in words; null when none. */
  fallback: string | null;
  /** The error that made this step fall back, or null. */
  error: ErrorRecord | null;
}

/** A JSON-serialisable record of a whole run: what `toolwire chat --once --json` prints. */
export interface AgentTranscript {
  version: 1;
  mode: AgentMode;
  provider: string;
  modelId: string;
  startedAt: string;
  durationMs: number;
  system: string | null;
  /** The input messages (the system prompt is in `system`). */
  input: Message[];
  /** What was fixed in the input transcript before the first call (see `repairTranscript`). */
  inputRepairs: string[];
  steps: AgentStep[];
  text: string;
  finishReason: AgentFinishReason;
  /** Summed over every step. */
  usage: Usage;
}
