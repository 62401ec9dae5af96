import {
  UnsupportedFeatureError,
  UsageError,
  assertToolChoice,
  normalizeToolSchema,
  plainFunctionTool,
  type ChatWarning,
  type JsonSchema,
  type RemoteMcpServer,
  type ResponseFormat,
  type ToolChoice,
  type ToolSpec,
} from '@toolwire/schema';
import type {
  AnthropicMcpServerParam,
  AnthropicToolChoiceParam,
  AnthropicToolParam,
  AnthropicToolUnionParam,
} from './anthropic-wire.js';

/** The beta the MCP connector needs (`mcp_servers` and `mcp_toolset`). */
const MCP_CONNECTOR_BETA = 'mcp-client-2025-11-20';

/** Anthropic's server-side tool search variants (`bm25`: natural language; `regex`: patterns). */
export type AnthropicToolSearch = 'bm25' | 'regex';

/** The name of the forced tool that carries structured output when none is given. */
export const DEFAULT_RESPONSE_TOOL_NAME = 'json_response';

export interface PrepareToolsOptions {
  tools: readonly ToolSpec[] | undefined;
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean | undefined;
  responseFormat: ResponseFormat | undefined;
  /** Extended thinking is on: the API then rejects forced tool choices (`any`, `tool`). */
  thinking: boolean;
  /** Remote MCP servers for the MCP connector. */
  mcpServers?: readonly RemoteMcpServer[] | undefined;
  /** The tool search tool added when tools are deferred (default `bm25`). */
  toolSearch?: AnthropicToolSearch;
  /** The code execution tool programmatic calls run in (default `code_execution_20260120`). */
  codeExecution?: string;
}

export interface PreparedTools {
  tools?: AnthropicToolUnionParam[];
  /** The MCP connector's server definitions. */
  mcpServers?: AnthropicMcpServerParam[];
  /** `anthropic-beta` values the request needs. */
  betas: string[];
  toolChoice?: AnthropicToolChoiceParam;
  warnings: ChatWarning[];
  /** The tool choice the model is actually held to, for the after-the-fact check. */
  effectiveChoice: ToolChoice | undefined;
  /** Set when the choice was downgraded (or is checked after the fact), so the response is checked against it. */
  downgradedFrom?: ToolChoice;
  /** With `responseFormat`: the forced tool whose input is the structured output. */
  responseTool?: { name: string; schema: JsonSchema };
}

/**
 * Maps provider-neutral tools and tool choice to Anthropic's: `none` is sent as `none` with the
 * tools kept (so earlier tool turns stay valid), `required` is `any`, a specific tool is
 * `{type:'tool'}`, and `parallelToolCalls: false` is `disable_parallel_tool_use`. With extended
 * thinking on, forced choices are downgraded to `auto` with a warning, because the API rejects
 * them. Structured output is a forced tool whose input is the answer.
 */
export function prepareAnthropicTools(options: PrepareToolsOptions): PreparedTools {
  const warnings: ChatWarning[] = [];
  const specs = options.tools ?? [];
  assertToolChoice(options.toolChoice, [
    ...specs.map((tool) => tool.name),
    ...(options.responseFormat ? [options.responseFormat.name ?? DEFAULT_RESPONSE_TOOL_NAME] : []),
  ]);

  const codeExecution = options.codeExecution ?? 'code_execution_20260120';
  const tools: AnthropicToolUnionParam[] = specs.map((spec) => {
    // Free-text tools are one string here; examples stay in `input_examples`.
    const plain = plainFunctionTool(spec, { keepExamples: true });
    const schema = normalizeToolSchema(plain.inputSchema, { toolName: spec.name });
    for (const change of schema.changes) {
      warnings.push({
        type: 'schema-changed',
        toolName: change.toolName,
        pointer: change.pointer,
        message: `${change.toolName}: ${change.message}`,
      });
    }
    const tool: AnthropicToolParam = {
      name: spec.name,
      description: plain.description,
      input_schema: schema.schema,
    };
    if (spec.inputExamples && spec.inputExamples.length > 0)
      tool.input_examples = spec.inputExamples;
    if (spec.deferred) tool.defer_loading = true;
    if (spec.allowedCallers)
      tool.allowed_callers = spec.allowedCallers.map((caller) =>
        caller === 'direct' ? 'direct' : codeExecution,
      );
    return tool;
  });
  const betas: string[] = [];
  const mcpServers = (options.mcpServers ?? []).map((server, index) => {
    const prepared = mcpServer(server, index, warnings);
    tools.push(prepared.toolset);
    return prepared.server;
  });
  if (mcpServers.length > 0) betas.push(MCP_CONNECTOR_BETA);
  const search = options.toolSearch ?? 'bm25';
  if (
    specs.some((spec) => spec.deferred) ||
    (options.mcpServers ?? []).some((server) => server.deferred)
  )
    tools.push(
      search === 'regex'
        ? { type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }
        : { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' },
    );
  if (specs.some((spec) => spec.allowedCallers?.includes('programmatic')))
    tools.push({ type: codeExecution, name: 'code_execution' });

  let choice = options.toolChoice;
  let responseTool: PreparedTools['responseTool'];
  if (options.responseFormat) {
    const name = options.responseFormat.name ?? DEFAULT_RESPONSE_TOOL_NAME;
    if (specs.some((tool) => tool.name === name)) {
      throw new UsageError({
        message: `responseFormat.name "${name}" collides with a tool of the same name; choose another responseFormat.name`,
      });
    }
    const schema = normalizeToolSchema(options.responseFormat.schema, { toolName: name });
    for (const change of schema.changes) {
      warnings.push({
        type: 'schema-changed',
        toolName: name,
        pointer: change.pointer,
        message: `${name}: ${change.message}`,
      });
    }
    tools.push({
      name,
      description:
        options.responseFormat.description ?? 'Respond with the final answer as this tool input.',
      input_schema: schema.schema,
    });
    responseTool = { name, schema: options.responseFormat.schema };
    if (
      choice !== undefined &&
      choice !== 'auto' &&
      !(typeof choice === 'object' && choice.type === 'tool' && choice.toolName === name)
    ) {
      warnings.push({
        type: 'unsupported-setting',
        message: `toolChoice ${JSON.stringify(choice)} was replaced by the forced structured-output tool "${name}"`,
      });
    }
    choice = { type: 'tool', toolName: name };
  }

  if (tools.length === 0) {
    if (options.parallelToolCalls === false) {
      warnings.push({
        type: 'parallel-calls-ignored',
        message: 'parallelToolCalls has no effect without tools',
      });
    }
    return { warnings, effectiveChoice: undefined, betas };
  }

  let downgradedFrom: ToolChoice | undefined;
  if (typeof choice === 'object' && choice.type === 'allowed') {
    // No subset choice here: every tool stays declared (the prompt cache holds) and the calls are
    // checked against the allowed set afterwards.
    downgradedFrom = choice;
    choice = choice.mode === 'required' && !options.thinking ? 'required' : 'auto';
  } else if (options.thinking && (choice === 'required' || typeof choice === 'object')) {
    downgradedFrom = choice;
    warnings.push({
      type: 'tool-choice-downgraded',
      message: `toolChoice ${JSON.stringify(choice)} was sent as "auto": Anthropic rejects forced tool use while extended thinking is enabled; the response is checked after the fact`,
      ...(typeof choice === 'object' ? { toolName: choice.toolName } : {}),
    });
    choice = 'auto';
  }

  const disableParallel = options.parallelToolCalls === false || responseTool !== undefined;
  let toolChoice: AnthropicToolChoiceParam | undefined;
  if (choice === 'none') {
    toolChoice = { type: 'none' };
    if (options.parallelToolCalls === false) {
      warnings.push({
        type: 'parallel-calls-ignored',
        message: 'parallelToolCalls has no effect with toolChoice "none"',
      });
    }
  } else {
    const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
    if (choice === 'required') toolChoice = { type: 'any', ...parallel };
    else if (typeof choice === 'object')
      toolChoice = { type: 'tool', name: choice.toolName, ...parallel };
    else if (choice === 'auto' || disableParallel) toolChoice = { type: 'auto', ...parallel };
  }

  return {
    tools,
    ...(mcpServers.length > 0 ? { mcpServers } : {}),
    betas,
    ...(toolChoice ? { toolChoice } : {}),
    warnings,
    effectiveChoice: choice,
    ...(downgradedFrom !== undefined ? { downgradedFrom } : {}),
    ...(responseTool ? { responseTool } : {}),
  };
}

/**
 * A remote MCP server for the MCP connector: its definition in `mcp_servers` and its
 * `mcp_toolset` (an allowlist as `enabled: false` by default with the listed tools enabled).
 * The connector runs calls at once, so a server that requires approval is refused.
 */
function mcpServer(
  server: RemoteMcpServer,
  index: number,
  warnings: ChatWarning[],
): { server: AnthropicMcpServerParam; toolset: AnthropicToolUnionParam } {
  if (typeof server?.name !== 'string' || server.name === '' || typeof server.url !== 'string')
    throw new UsageError({
      field: `request.mcpServers[${index}]`,
      message: `request.mcpServers[${index}] needs a name and a url (got ${JSON.stringify(server)})`,
    });
  if ((server.requireApproval ?? 'always') !== 'never')
    throw new UnsupportedFeatureError({
      feature: 'mcpServers.requireApproval',
      message: `request.mcpServers[${index}] ("${server.name}"): Anthropic's MCP connector runs tool calls without asking; set requireApproval: "never" to use it, or call the server through your own MCP client`,
    });
  if (server.headers !== undefined || server.description !== undefined)
    warnings.push({
      type: 'unsupported-setting',
      message: `request.mcpServers[${index}] ("${server.name}"): Anthropic's MCP connector takes no headers or description; they were not sent`,
    });
  const defaults = {
    ...(server.allowedTools !== undefined ? { enabled: false } : {}),
    ...(server.deferred ? { defer_loading: true } : {}),
  };
  return {
    server: {
      type: 'url',
      url: server.url,
      name: server.name,
      ...(server.authorization !== undefined ? { authorization_token: server.authorization } : {}),
    },
    toolset: {
      type: 'mcp_toolset',
      mcp_server_name: server.name,
      ...(Object.keys(defaults).length > 0 ? { default_config: defaults } : {}),
      ...(server.allowedTools !== undefined
        ? {
            configs: Object.fromEntries(
              server.allowedTools.map((name) => [name, { enabled: true }]),
            ),
          }
        : {}),
    },
  };
}
