import type { AnyTool } from '@toolwire/schema';
import type { AgentMode } from './agent-transcript.js';
import { InvalidAgentOptionsError } from './agent-errors.js';
import type { AgentOptions, ResolvedAgentOptions, ToolCallingMode } from './agent-options.js';

const TOOL_CALLING_MODES: readonly ToolCallingMode[] = ['native', 'prompt', 'auto'];
const MODES: readonly AgentMode[] = ['direct', 'code', 'gateway', 'staged'];

/** Checks `createAgent`'s options and fills in the defaults; a bad option names its field. */
export function resolveOptions(options: AgentOptions): ResolvedAgentOptions {
  if (options === null || typeof options !== 'object') {
    throw new InvalidAgentOptionsError({
      field: 'options',
      message: 'createAgent needs an options object',
    });
  }
  const { model } = options;
  if (
    model === null ||
    typeof model !== 'object' ||
    typeof model.generate !== 'function' ||
    typeof model.stream !== 'function'
  ) {
    throw new InvalidAgentOptionsError({
      field: 'model',
      message: 'model must be a ChatModel (an object with generate() and stream())',
    });
  }
  const mode = options.mode ?? 'direct';
  if (!MODES.includes(mode)) {
    throw new InvalidAgentOptionsError({
      field: 'mode',
      message: `mode must be one of ${MODES.map((m) => `"${m}"`).join(', ')} (got ${JSON.stringify(mode)})`,
    });
  }
  if (
    options.tools !== undefined &&
    typeof options.tools !== 'function' &&
    !Array.isArray(options.tools)
  ) {
    throw new InvalidAgentOptionsError({
      field: 'tools',
      message: 'tools must be an array of tools or a function returning one',
    });
  }
  const toolCalling = options.toolCalling ?? 'native';
  if (!TOOL_CALLING_MODES.includes(toolCalling)) {
    throw new InvalidAgentOptionsError({
      field: 'toolCalling',
      message: `toolCalling must be one of ${TOOL_CALLING_MODES.map((m) => `"${m}"`).join(', ')} (got ${JSON.stringify(toolCalling)})`,
    });
  }
  const maxSteps = options.maxSteps ?? 10;
  checkInteger('maxSteps', maxSteps, 1);
  const concurrency = options.concurrency ?? 8;
  checkInteger('concurrency', concurrency, 1);
  const maxRetries = options.maxRetries ?? 2;
  checkInteger('maxRetries', maxRetries, 0);
  const retryDelayMs = options.retryDelayMs ?? 500;
  if (typeof retryDelayMs !== 'number' || !(retryDelayMs >= 0)) {
    throw new InvalidAgentOptionsError({
      field: 'retryDelayMs',
      message: `retryDelayMs must be a number >= 0 (got ${JSON.stringify(retryDelayMs)})`,
    });
  }
  if (
    options.toolTimeoutMs !== undefined &&
    !(typeof options.toolTimeoutMs === 'number' && options.toolTimeoutMs > 0)
  ) {
    throw new InvalidAgentOptionsError({
      field: 'toolTimeoutMs',
      message: `toolTimeoutMs must be a number > 0 (got ${JSON.stringify(options.toolTimeoutMs)})`,
    });
  }
  for (const hook of ['approve', 'needsApproval', 'repairToolCall'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new InvalidAgentOptionsError({
        field: hook,
        message: `${hook} must be a function (got ${typeof options[hook]})`,
      });
    }
  }
  for (const hook of ['prepareStep'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function') {
      throw new InvalidAgentOptionsError({
        field: hook,
        message: `${hook} must be a function (got ${typeof options[hook]})`,
      });
    }
  }
  if (
    options.activeTools !== undefined &&
    (!Array.isArray(options.activeTools) ||
      options.activeTools.some((name: unknown) => typeof name !== 'string'))
  ) {
    throw new InvalidAgentOptionsError({
      field: 'activeTools',
      message: 'activeTools must be an array of tool names',
    });
  }
  const stopWhen =
    options.stopWhen === undefined
      ? []
      : Array.isArray(options.stopWhen)
        ? options.stopWhen
        : [options.stopWhen];
  stopWhen.forEach((condition: unknown, index: number) => {
    if (typeof condition !== 'function')
      throw new InvalidAgentOptionsError({
        field: `stopWhen[${index}]`,
        message: `stopWhen must be a condition (a function such as stepCountIs(5)) or an array of them; item ${index} is ${typeof condition}`,
      });
  });
  const guardrails = {
    input: options.guardrails?.input ?? [],
    output: options.guardrails?.output ?? [],
  };
  for (const stage of ['input', 'output'] as const) {
    guardrails[stage].forEach((guardrail: { name?: unknown; check?: unknown }, index: number) => {
      if (typeof guardrail?.name !== 'string' || typeof guardrail.check !== 'function')
        throw new InvalidAgentOptionsError({
          field: `guardrails.${stage}[${index}]`,
          message: `guardrails.${stage}[${index}] must be { name, check(request) } (with an optional tools list)`,
        });
    });
  }
  if (options.pauseForApproval && mode === 'staged') {
    throw new InvalidAgentOptionsError({
      field: 'pauseForApproval',
      message:
        'pauseForApproval works in the tool loop (modes direct, code, gateway), not in the staged pipeline',
    });
  }
  if (options.mcpServers !== undefined && !Array.isArray(options.mcpServers)) {
    throw new InvalidAgentOptionsError({
      field: 'mcpServers',
      message: 'mcpServers must be an array of { name, url, ... } remote MCP servers',
    });
  }
  if (options.system !== undefined && typeof options.system !== 'string') {
    throw new InvalidAgentOptionsError({
      field: 'system',
      message: `system must be a string (got ${typeof options.system})`,
    });
  }
  return {
    prepareStep: options.prepareStep,
    activeTools: options.activeTools,
    stopWhen,
    guardrails,
    pauseForApproval: options.pauseForApproval === true,
    mcpServers: options.mcpServers,
    tracer: options.telemetry?.tracer,
    agentName: options.telemetry?.agentName ?? 'toolwire-agent',
    mode,
    toolCalling,
    system: options.system,
    maxSteps,
    approve: options.approve,
    needsApproval:
      options.needsApproval ?? ((tool: AnyTool) => tool.annotations?.destructiveHint === true),
    repairToolCall: options.repairToolCall,
    maxRetries,
    retryDelayMs,
    concurrency,
    toolTimeoutMs: options.toolTimeoutMs,
    temperature: options.temperature,
    maxOutputTokens: options.maxOutputTokens,
    providerOptions: options.providerOptions,
  };
}

function checkInteger(field: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidAgentOptionsError({
      field,
      message: `${field} must be an integer >= ${min} (got ${JSON.stringify(value)})`,
    });
  }
}
