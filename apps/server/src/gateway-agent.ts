import type { ServerResponse } from 'node:http';
import type { AgentResult } from '@toolwire/agent';
import { codeModeLimits, resolveCodeModeSettings } from '@toolwire/codemode/settings';
import { JsonRpcFault, toolErrorOf, type AuthToken } from '@toolwire/forwarder';
import { toToolResult } from '@toolwire/mcp';
import {
  toolContent,
  type AnyTool,
  type AssistantMessage,
  type Message,
  type ToolCall,
  type ToolChoice,
} from '@toolwire/schema';
import { loadCodeMode } from './code-mode-loader.js';
import { gatewayToolSource, visibleTools } from './gateway-tool-source.js';
import { holdsGrant } from './grants.js';
import type { Logger } from './logger.js';
import type { StoredExchange } from './response-store.js';
import type { Runtime } from './runtime.js';
import type { SharedState } from './shared-state.js';

export interface ChatContext {
  runtime: Runtime;
  token: AuthToken | undefined;
  shared: SharedState;
  logger: Logger;
  maxBody: number;
}

/** What both OpenAI-compatible endpoints read from a request before running it. */
export interface RunRequest {
  model: string | undefined;
  system: string | undefined;
  messages: Message[];
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
  /** Tools the client declared: their calls go back to the client. */
  clientTools: AnyTool[];
  /** For the model's first request. */
  toolChoice: ToolChoice | undefined;
}

/**
 * Code mode's tool (`EXECUTE_CODE_TOOL_NAME` of `@toolwire/codemode`, whose import loads the
 * checker and the sandbox: not at start).
 */
const EXECUTE_CODE = 'execute_code';

/** Who owns what the gateway keeps for a request (responses, items, exchanges). */
export function ownerOf(token: AuthToken | undefined): string {
  return token?.client ?? '';
}

/**
 * Names the model already gets from the gateway for this token (its tools, `execute_code` when
 * code mode could be on): a client tool may not take one.
 */
export function gatewayToolNames(runtime: Runtime, token: AuthToken | undefined): Set<string> {
  const names = new Set(visibleTools(runtime, token).map((tool) => tool.name));
  names.add(EXECUTE_CODE);
  return names;
}

/** The gateway's tools for the model: every call goes through the forwarder's policy pipeline. */
function gatewayTools(runtime: Runtime, token: AuthToken | undefined): AnyTool[] {
  return visibleTools(runtime, token).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    execute: async (args: unknown, context: { signal: AbortSignal; toolCallId: string }) => {
      let result;
      try {
        result = await runtime.forwarder.callTool(tool.name, args, {
          token,
          signal: context.signal,
        });
      } catch (error) {
        throw error instanceof JsonRpcFault ? toolErrorOf(error) : error;
      }
      const converted = toToolResult(
        { id: context.toolCallId, name: tool.name },
        result as Parameters<typeof toToolResult>[1],
      );
      return toolContent(converted.content, {
        isError: converted.isError,
        ...(converted.structuredContent !== undefined
          ? { structuredContent: converted.structuredContent }
          : {}),
      });
    },
  })) as AnyTool[];
}

/**
 * The configured upstream model and an agent over the gateway's tools (code mode's when it is
 * on) and the client's own, as `/v1/chat/completions` and `/v1/responses` both run it. A step in
 * which the model calls a client tool ends the run: the gateway's calls of that step run, the
 * client's go back to it. The agent, the provider SDKs and code mode are imported at the first
 * chat request, so a gateway that only forwards MCP never loads them (it idles in less memory).
 */
export async function gatewayAgent(ctx: ChatContext, request: RunRequest, res: ServerResponse) {
  const { runtime, token } = ctx;
  const [{ chatModelFromConfig }, { createAgent, hasToolCall }] = await Promise.all([
    import('./chat-model.js'),
    import('@toolwire/agent'),
  ]);
  const model = chatModelFromConfig(runtime.config, request.model);
  // codeMode.defaults and codeMode.models[].match decide per model whether it gets execute_code;
  // a token not granted execute_code gets the tools it may call directly instead.
  const codeSettings = resolveCodeModeSettings(runtime.config.codeMode, model.modelId);
  const codeModeTools =
    codeSettings.enabled && holdsGrant(runtime, token, 'execute_code')
      ? (await loadCodeMode(runtime.config)).createCodeModeTools({
          source: gatewayToolSource(runtime, token),
          ...(token ? { owner: token.client } : {}),
          excludedTools: codeSettings.excludedTools,
          pinnedTools: codeSettings.pinnedTools,
          typecheck: 'warn',
          limits: codeModeLimits(runtime.config.codeMode?.limits),
        })
      : undefined;
  // Release the code mode (its source listener, its share of the executor) with the response.
  res.once('close', () => {
    codeModeTools?.close().catch((error: unknown) => {
      ctx.logger.warn('closing code mode failed', { error: String(error) });
    });
  });
  const clientNames = request.clientTools.map((tool) => tool.name);
  const choice = request.toolChoice;
  const agent = createAgent({
    model,
    tools: [...(codeModeTools ?? gatewayTools(runtime, token)), ...request.clientTools],
    // An upstream model without tool calling gets the tools in its prompt instead of failing.
    toolCalling: 'auto',
    ...(clientNames.length > 0 ? { stopWhen: hasToolCall(...clientNames) } : {}),
    ...(choice !== undefined
      ? { prepareStep: ({ step }) => (step === 1 ? { toolChoice: choice } : undefined) }
      : {}),
    ...(request.system !== undefined ? { system: request.system } : {}),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  });
  return { model, agent, clientNames: new Set(clientNames) };
}

/** A run as the client gets it back. */
export interface RunOutcome {
  /** The conversation to keep: no results for the client's calls (the client sends those). */
  conversation: Message[];
  /** The client's tool calls the run stopped at; [] when the model answered. */
  clientCalls: ToolCall[];
  /** The text of the last model turn. */
  text: string;
  /** What Chat Completions cannot carry: the gateway's own calls on the way (with client calls only). */
  exchange: StoredExchange | undefined;
  /** The gateway's tool calls that ran, for the `toolwire` summary. */
  toolCalls: Array<{ name: string; isError: boolean }>;
}

export function runOutcome(
  result: AgentResult,
  inputLength: number,
  clientNames: ReadonlySet<string>,
): RunOutcome {
  const messages = result.messages;
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  const stoppedAtClient =
    result.finishReason === 'stop-condition' &&
    last?.role === 'tool' &&
    assistant?.role === 'assistant' &&
    (assistant.toolCalls ?? []).some((call) => clientNames.has(call.name));
  const toolCalls: RunOutcome['toolCalls'] = [];
  for (const message of messages.slice(inputLength)) {
    if (message.role !== 'tool') continue;
    for (const r of message.results)
      if (!clientNames.has(r.toolName)) toolCalls.push({ name: r.toolName, isError: r.isError });
  }
  if (!stoppedAtClient)
    return {
      conversation: messages,
      clientCalls: [],
      text: result.text,
      exchange: undefined,
      toolCalls,
    };
  const turn = assistant as AssistantMessage;
  const serverResults = last.results.filter((r) => !clientNames.has(r.toolName));
  const at = messages.length - 2;
  return {
    conversation: [
      ...messages.slice(0, at + 1),
      ...(serverResults.length > 0 ? [{ role: 'tool' as const, results: serverResults }] : []),
    ],
    clientCalls: (turn.toolCalls ?? []).filter((call) => clientNames.has(call.name)),
    text: turn.content,
    exchange: { before: messages.slice(inputLength, at), assistant: turn, serverResults },
    toolCalls,
  };
}
