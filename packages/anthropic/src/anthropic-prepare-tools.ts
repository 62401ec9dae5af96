import {
  UsageError,
  assertToolChoice,
  normalizeToolSchema,
  normalizeToolSchemas,
  type ChatWarning,
  type JsonSchema,
  type ResponseFormat,
  type ToolChoice,
  type ToolSpec,
} from '@toolwire/schema';
import type { AnthropicToolChoiceParam, AnthropicToolParam } from './anthropic-wire.js';

/** The name of the forced tool that carries structured output when none is given. */
export const DEFAULT_RESPONSE_TOOL_NAME = 'json_response';

export interface PrepareToolsOptions {
  tools: readonly ToolSpec[] | undefined;
  toolChoice: ToolChoice | undefined;
  parallelToolCalls: boolean | undefined;
  responseFormat: ResponseFormat | undefined;
  /** Extended thinking is on: the API then rejects forced tool choices (`any`, `tool`). */
  thinking: boolean;
}

export interface PreparedTools {
  tools?: AnthropicToolParam[];
  toolChoice?: AnthropicToolChoiceParam;
  warnings: ChatWarning[];
  /** The tool choice the model is actually held to, for the after-the-fact check. */
  effectiveChoice: ToolChoice | undefined;
  /** Set when the choice was downgraded, so the response is checked against the original. */
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

  const converted = normalizeToolSchemas(specs);
  for (const change of converted.changes) {
    warnings.push({
      type: 'schema-changed',
      toolName: change.toolName,
      pointer: change.pointer,
      message: `${change.toolName}: ${change.message}`,
    });
  }
  const tools: AnthropicToolParam[] = converted.tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));

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
      !(typeof choice === 'object' && choice.toolName === name)
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
    return { warnings, effectiveChoice: undefined };
  }

  let downgradedFrom: ToolChoice | undefined;
  if (options.thinking && (choice === 'required' || typeof choice === 'object')) {
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
    ...(toolChoice ? { toolChoice } : {}),
    warnings,
    effectiveChoice: choice,
    ...(downgradedFrom !== undefined ? { downgradedFrom } : {}),
    ...(responseTool ? { responseTool } : {}),
  };
}
