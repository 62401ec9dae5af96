import {
  UsageError,
  assertToolChoice,
  type ChatRequest,
  type ChatWarning,
  type RemoteMcpServer,
  type ToolSpec,
} from '@toolwire/schema';
import {
  prepareOpenAIResponseFormat,
  prepareOpenAITools,
  type OpenAIPreparedTool,
} from './openai-prepare-tools.js';
import type { OpenAIRequestSettings } from './openai-request.js';
import { convertToOpenAIResponsesMessages } from './openai-responses-convert-messages.js';
import type {
  OpenAIResponsesRequestBody,
  ResponsesCustomToolWire,
  ResponsesFunctionToolWire,
  ResponsesToolWire,
} from './openai-wire.js';

/** A group of tools the Responses API shows by name and description until tool search loads them. */
export interface OpenAIToolNamespace {
  name: string;
  description: string;
}

export interface OpenAIResponsesRequestSettings extends Pick<
  OpenAIRequestSettings,
  | 'modelId'
  | 'providerName'
  | 'schemaDialect'
  | 'strictTools'
  | 'strictResponseFormat'
  | 'nativeToolFeatures'
> {
  /** `store` as sent; undefined leaves the API default (stored). */
  store: boolean | undefined;
  /** Ask for `reasoning.encrypted_content` (needed to replay reasoning with `store: false`). */
  encryptedReasoning: boolean;
  /** `reasoning` as sent (`effort`, `summary`); undefined sends none. */
  reasoning: { effort?: string; summary?: string } | undefined;
  /** The namespace a tool is sent in, if any (`namespace` tools; deferred members load through search). */
  toolNamespace: ((tool: ToolSpec) => OpenAIToolNamespace | undefined) | undefined;
}

export interface BuiltOpenAIResponsesRequest {
  body: OpenAIResponsesRequestBody;
  warnings: ChatWarning[];
  strictToolNames: string[];
  strictResponseFormat: boolean;
}

/**
 * Builds the Responses body for a request (no I/O); throws on a request that cannot work.
 * Deferred tools get `defer_loading` and the hosted `tool_search` tool is added (with
 * `toolSearch: 'client'` the model emulates search before this is called); tools in a namespace
 * are grouped in `namespace` tools; free-text tools are `custom` tools; a tool code may call adds
 * `programmatic_tool_calling`; remote MCP servers are `mcp` tools.
 */
export function buildOpenAIResponsesRequest(
  request: ChatRequest,
  settings: OpenAIResponsesRequestSettings,
  stream: boolean,
): BuiltOpenAIResponsesRequest {
  if (!Array.isArray(request.messages))
    throw new UsageError({
      field: 'request.messages',
      message: 'request.messages must be an array of messages',
    });
  const warnings: ChatWarning[] = [];
  assertToolChoice(
    request.toolChoice,
    (request.tools ?? []).map((tool) => tool.name),
  );
  const prepared = prepareOpenAITools(request, settings, warnings, { responses: true });
  const namespaces = new Map<string, string>();
  for (const tool of request.tools ?? []) {
    const namespace = settings.toolNamespace?.(tool);
    if (namespace) namespaces.set(tool.name, namespace.name);
  }
  const body: OpenAIResponsesRequestBody = {
    model: settings.modelId,
    input: convertToOpenAIResponsesMessages(request.messages, warnings, {
      customToolNames: new Set(prepared.customToolNames),
      namespaces,
    }),
  };
  const tools: ResponsesToolWire[] = [];
  if (prepared.tools) {
    const specs = new Map((request.tools ?? []).map((tool) => [tool.name, tool]));
    const groups = new Map<string, Extract<ResponsesToolWire, { type: 'namespace' }>>();
    for (const tool of prepared.tools) {
      const wire = toolWire(tool);
      const namespace = settings.toolNamespace?.(specs.get(tool.name)!);
      if (!namespace) {
        tools.push(wire);
        continue;
      }
      let group = groups.get(namespace.name);
      if (!group) {
        group = {
          type: 'namespace',
          name: namespace.name,
          description: namespace.description,
          tools: [],
        };
        groups.set(namespace.name, group);
        tools.push(group);
      }
      group.tools.push(wire);
    }
    if (prepared.tools.some((tool) => tool.deferLoading)) tools.push({ type: 'tool_search' });
    if (prepared.tools.some((tool) => tool.allowedCallers?.includes('programmatic')))
      tools.push({ type: 'programmatic_tool_calling' });
  }
  for (const [index, server] of (request.mcpServers ?? []).entries())
    tools.push(mcpTool(server, index));
  if (
    !tools.some((tool) => tool.type === 'tool_search') &&
    (request.mcpServers ?? []).some((server) => server.deferred)
  )
    tools.push({ type: 'tool_search' });
  if (tools.length > 0) body.tools = tools;
  if (prepared.tools) {
    const custom = new Set(prepared.customToolNames);
    const named = (name: string) =>
      ({ type: custom.has(name) ? 'custom' : 'function', name }) as const;
    const choice = prepared.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string'
          ? choice
          : choice.type === 'tool'
            ? named(choice.toolName)
            : {
                type: 'allowed_tools',
                mode: choice.mode ?? 'auto',
                tools: choice.toolNames.map(named),
              };
    if (prepared.parallelToolCalls !== undefined)
      body.parallel_tool_calls = prepared.parallelToolCalls;
  }
  const format = prepareOpenAIResponseFormat(request, settings, warnings);
  if (format) body.text = { format: { type: 'json_schema', ...format } };
  if (settings.store !== undefined) body.store = settings.store;
  if (settings.encryptedReasoning) body.include = ['reasoning.encrypted_content'];
  if (settings.reasoning) body.reasoning = settings.reasoning;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    warnings.push({
      type: 'unsupported-setting',
      message: 'stopSequences was ignored: the Responses API has no stop sequences',
    });
  if (stream) body.stream = true;
  const extra = request.providerOptions?.[settings.providerName];
  if (extra) Object.assign(body, extra);
  return {
    body,
    warnings,
    strictToolNames: prepared.strictToolNames,
    strictResponseFormat: format?.strict ?? false,
  };
}

function toolWire(tool: OpenAIPreparedTool): ResponsesFunctionToolWire | ResponsesCustomToolWire {
  const extra = {
    ...(tool.deferLoading ? { defer_loading: true } : {}),
    ...(tool.allowedCallers ? { allowed_callers: tool.allowedCallers } : {}),
  };
  if (tool.kind === 'custom')
    return {
      type: 'custom',
      name: tool.name,
      description: tool.description,
      format: tool.format,
      ...extra,
    };
  // The Responses API makes function tools strict unless told otherwise.
  return {
    type: 'function',
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: tool.strict ?? false,
    ...extra,
  };
}

function mcpTool(server: RemoteMcpServer, index: number): ResponsesToolWire {
  if (typeof server?.name !== 'string' || server.name === '' || typeof server.url !== 'string')
    throw new UsageError({
      field: `request.mcpServers[${index}]`,
      message: `request.mcpServers[${index}] needs a name and a url (got ${JSON.stringify(server)})`,
    });
  const approval = server.requireApproval ?? 'always';
  return {
    type: 'mcp',
    server_label: server.name,
    server_url: server.url,
    ...(server.description !== undefined ? { server_description: server.description } : {}),
    ...(server.authorization !== undefined ? { authorization: server.authorization } : {}),
    ...(server.headers !== undefined ? { headers: server.headers } : {}),
    ...(server.allowedTools !== undefined ? { allowed_tools: server.allowedTools } : {}),
    require_approval:
      typeof approval === 'string' ? approval : { never: { tool_names: approval.never } },
    ...(server.deferred ? { defer_loading: true } : {}),
  };
}
