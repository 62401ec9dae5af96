import { ToolExecutionError } from './errors.js';
import type { JsonSchema } from './json-schema.js';
import type { ToolAnnotations } from './define-tool.js';

/**
 * The gateway-tool contract (seed 004): one tool per MCP server whose input is
 * `{ action: "list" | "describe" | "execute", tool, arguments }`. `action` defaults to `"list"`;
 * seed 004's `tool_name` / `tool_inputs` are read as `tool` / `arguments`. The agent's gateway
 * mode (`@toolwire/mcp`) and the forwarder's (`/mcp` with `gateway.mode: "gateway"`) both build
 * on this, so a model sees the same tool and the same answers from either.
 */
export const GATEWAY_ACTIONS = ['list', 'describe', 'execute'] as const;
export type GatewayAction = (typeof GATEWAY_ACTIONS)[number];

export interface GatewayRequest {
  action: GatewayAction;
  tool?: string;
  arguments: Record<string, unknown>;
}

/** One tool behind a gateway tool, as `list` and `describe` show it. */
export interface GatewayTarget {
  /** The tool's own (server-side) name, which `execute` takes. */
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** `ok`, `stale` (served from the cache) or `unavailable`. */
  status?: string;
}

export const GATEWAY_INPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    action: {
      type: 'string',
      enum: [...GATEWAY_ACTIONS],
      default: 'list',
      description:
        'list (default): the tools with their input schemas; describe: one tool in full; execute: run one.',
    },
    tool: {
      type: 'string',
      description: 'For describe and execute: the tool name as shown by list.',
    },
    arguments: {
      type: 'object',
      description: 'For execute: the arguments of the tool, matching its input schema.',
    },
    tool_name: { type: 'string', description: 'Same as "tool".' },
    tool_inputs: { type: 'object', description: 'Same as "arguments".' },
  },
  additionalProperties: false,
};

export function gatewayToolDescription(server: string, toolCount?: number): string {
  return `Gateway to the tools of MCP server "${server}"${toolCount ? ` (${toolCount} tools)` : ''}. action "list" lists them with their input schemas, "describe" shows one tool in full, "execute" runs one: {"action":"execute","tool":"<name>","arguments":{...}}.`;
}

const USAGE =
  'send {"action":"list"} to see the tools, or {"action":"execute","tool":"<name>","arguments":{...}} to run one';

/**
 * Reads a gateway tool's arguments. A wrong call throws a `ToolExecutionError`
 * (`invalidArguments`) whose message tells the model what to send instead.
 */
export function parseGatewayRequest(args: unknown): GatewayRequest {
  const input = args ?? {};
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw invalid(`the arguments must be a JSON object; ${USAGE}`);
  }
  const record = input as Record<string, unknown>;
  const known = new Set(['action', 'tool', 'arguments', 'tool_name', 'tool_inputs']);
  const unknown = Object.keys(record).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    throw invalid(
      `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}: the tool's own arguments go inside "arguments"; ${USAGE}`,
    );
  }
  const action = record.action ?? 'list';
  if (typeof action !== 'string' || !(GATEWAY_ACTIONS as readonly string[]).includes(action)) {
    throw invalid(
      `action must be "list", "describe" or "execute" (got ${JSON.stringify(action)}); ${USAGE}`,
    );
  }
  const tool = record.tool ?? record.tool_name;
  if (tool !== undefined && typeof tool !== 'string') {
    throw invalid(`"tool" must be a tool name (a string) as shown by action "list"`);
  }
  const toolArguments = record.arguments ?? record.tool_inputs ?? {};
  if (typeof toolArguments !== 'object' || toolArguments === null || Array.isArray(toolArguments)) {
    throw invalid(
      `"arguments" must be an object with the tool's arguments, e.g. {"action":"execute","tool":"${tool ?? '<name>'}","arguments":{...}}`,
    );
  }
  return {
    action: action as GatewayAction,
    ...(tool !== undefined ? { tool } : {}),
    arguments: toolArguments as Record<string, unknown>,
  };
}

/**
 * The tool a `describe` or `execute` request names, by its own name (or `exposedName`, when the
 * model copied a namespaced one). Throws a `ToolExecutionError` that says what to send.
 */
export function findGatewayTarget<T extends GatewayTarget>(
  server: string,
  request: GatewayRequest,
  tools: readonly T[],
  exposedName: (tool: T) => string = (tool) => tool.name,
): T {
  const names = tools.map((t) => t.name).join(', ');
  if (!request.tool) {
    throw invalid(
      `action "${request.action}" needs "tool" (one of: ${names || 'none listed yet'}), e.g. {"action":"${request.action}","tool":"${tools[0]?.name ?? '<name>'}"${request.action === 'execute' ? ',"arguments":{...}' : ''}}`,
    );
  }
  const target =
    tools.find((tool) => tool.name === request.tool) ??
    tools.find((tool) => exposedName(tool) === request.tool);
  if (!target) {
    throw new ToolExecutionError({
      category: 'resourceNotFound',
      message: `server "${server}" has no tool "${request.tool}"; use action "list" to see its tools`,
      details: { available: names },
    });
  }
  return target;
}

/** The answer to `list`: every tool with a one-line description and its input schema. */
export function gatewayListing(
  server: string,
  state: { status?: string; reason?: string },
  tools: readonly GatewayTarget[],
): Record<string, unknown> {
  return {
    server,
    ...(state.status !== undefined ? { status: state.status } : {}),
    ...(state.reason ? { reason: state.reason } : {}),
    tools: tools.map((tool) => ({
      name: tool.name,
      description: firstLine(tool.description ?? ''),
      inputSchema: tool.inputSchema,
      ...(tool.status !== undefined && tool.status !== 'ok' ? { status: tool.status } : {}),
    })),
  };
}

/** The answer to `describe`: the tool's full definition. */
export function gatewayDescription(tool: GatewayTarget): Record<string, unknown> {
  return {
    name: tool.name,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
    status: tool.status ?? 'ok',
  };
}

function invalid(message: string): ToolExecutionError {
  return new ToolExecutionError({ category: 'invalidArguments', message });
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? text;
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}
