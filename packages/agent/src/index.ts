export { createAgent } from './create-agent.js';
export type { Agent, AgentInput, RunOptions } from './create-agent.js';
export type {
  AgentOptions,
  ToolProvider,
  ToolListMode,
  ApprovalRequest,
  ApprovalDecision,
  RepairToolCallRequest,
  ToolCallingMode,
  PrepareStepRequest,
  StepSettings,
  AgentTelemetry,
} from './agent-options.js';
export { stepCountIs, hasToolCall } from './stop-conditions.js';
export { createSamplingHandler } from './sampling-handler.js';
export type { SamplingParams, SamplingResult } from './sampling-handler.js';
export type { StopCondition, StopConditionState } from './stop-conditions.js';
export type {
  ToolInputGuardrail,
  ToolOutputGuardrail,
  ToolInputVerdict,
  ToolOutputVerdict,
  GuardrailRecord,
} from './guardrails.js';
export type { AgentRunState, PendingApproval } from './agent-state.js';
export type { AgentResult } from './agent-result.js';
export type { AgentEvent } from './agent-event.js';
export type {
  AgentMode,
  AgentStep,
  AgentTranscript,
  AgentFinishReason,
  StepKind,
  StepRequest,
  StepResponse,
  ApprovalRecord,
  RepairRecord,
  ErrorRecord,
} from './agent-transcript.js';
export { InvalidAgentOptionsError, StageOutputError } from './agent-errors.js';
export { SELECTION_SYSTEM_PROMPT } from './staged-pipeline.js';
