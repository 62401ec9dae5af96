import {
  toToolResult,
  type Registry,
  type RegistryTool,
  type ServerInfo,
  type ToolwireConfig,
} from '@toolwire/mcp';
import { ToolwireError, isPlainObject, toolResultText } from '@toolwire/schema';
import type { CliContext } from '../context.js';
import { writeLine } from '../context.js';
import { CommandFailedError, UsageError, describeError } from '../errors.js';
import { formatJson, oneLine, type Colors } from '../output.js';
import { renderTable } from '../table.js';
import { withRegistry } from '../registry.js';

type CallToolResult = Awaited<ReturnType<Registry['callTool']>>;
type SpecServerStatus = 'ok' | 'stale' | 'down' | 'disabled';

/** The `tools list --json` document, in exactly SPEC's shape. */
function toolListDocument(registry: Registry): {
  tools: Array<Record<string, unknown>>;
  servers: Array<Record<string, unknown>>;
} {
  const tools = registry.listTools().map((tool) => ({
    name: tool.name,
    description: tool.description,
    source: tool.source,
    originalName: tool.originalName,
    status: tool.status,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema !== undefined ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
  }));
  const servers = registry.servers().map((server) => {
    const { status, reason } = specStatus(server);
    return {
      name: server.name,
      status,
      ...(reason !== undefined ? { reason } : {}),
      tools: server.tools,
    };
  });
  return { tools, servers };
}

/**
 * SPEC knows ok/stale/down/disabled. A server still connecting when we report (or idle, never
 * connected: the registry's lazy mode, which the CLI does not use) counts as down.
 */
function specStatus(server: ServerInfo): { status: SpecServerStatus; reason?: string } {
  if (server.status === 'connecting' || server.status === 'idle') {
    return {
      status: 'down',
      reason:
        server.reason ?? (server.status === 'idle' ? 'not connected yet' : 'still connecting'),
    };
  }
  return {
    status: server.status,
    ...(server.reason !== undefined ? { reason: server.reason } : {}),
  };
}

function paintStatus(status: string, colors: Colors): string {
  if (status === 'ok') return colors.green(status);
  if (status === 'stale') return colors.yellow(status);
  if (status === 'disabled') return colors.dim(status);
  return colors.red(status);
}

function printToolList(ctx: CliContext, registry: Registry): void {
  const tools: RegistryTool[] = registry.listTools();
  const width = Math.max(40, (ctx.stdout.columns ?? 120) - 50);
  writeLine(
    ctx.stdout,
    renderTable(
      ['NAME', 'SOURCE', 'STATUS', 'DESCRIPTION'],
      tools.map((tool) => [
        ctx.out.cyan(tool.name),
        tool.source,
        paintStatus(tool.status, ctx.out),
        oneLine(tool.description, width),
      ]),
      ctx.out,
    ),
  );
  const servers = registry.servers();
  if (servers.length === 0) return;
  writeLine(ctx.stdout);
  writeLine(
    ctx.stdout,
    renderTable(
      ['SERVER', 'STATUS', 'TOOLS', 'REASON'],
      servers.map((server) => {
        const { status, reason } = specStatus(server);
        return [
          server.name,
          paintStatus(status, ctx.out),
          String(server.tools),
          oneLine(reason, 80),
        ];
      }),
      ctx.out,
    ),
  );
}

/** `--args` is strict JSON (a typo should not be "repaired" into a different call). */
export function parseArgsFlag(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError({ message: `--args is not valid JSON: ${(error as Error).message}` });
  }
  if (!isPlainObject(value)) {
    throw new UsageError({
      message: `--args must be a JSON object, e.g. --args '{"key":"value"}'`,
    });
  }
  return value;
}

async function callToolCommand(
  ctx: CliContext,
  registry: Registry,
  name: string,
  args: Record<string, unknown>,
  json: boolean,
): Promise<void> {
  let result: CallToolResult;
  try {
    result = await registry.callTool(name, args);
  } catch (error) {
    // With --json, stdout always holds one document: the result, or why there is none.
    if (json) {
      const code = ToolwireError.isInstance(error) ? error.code : 'error';
      writeLine(ctx.stdout, formatJson({ error: { code, message: describeError(error) } }));
    }
    throw error;
  }
  const converted = toToolResult({ id: 'cli', name }, result);
  if (json) {
    writeLine(ctx.stdout, formatJson(result));
  } else if (!converted.isError) {
    const text = resultForPeople(result, converted.content);
    if (text !== '') writeLine(ctx.stdout, text);
  }
  if (converted.isError) {
    throw new CommandFailedError(
      `tool "${name}" failed: ${toolResultText(converted) || 'it returned an error without a message'}`,
    );
  }
}

/** Text parts verbatim, JSON pretty-printed, binary parts summarised. */
function resultForPeople(
  result: CallToolResult,
  parts: ReturnType<typeof toToolResult>['content'],
): string {
  const pieces: string[] = [];
  for (const part of parts) {
    if (part.type === 'text') pieces.push(part.text);
    else if (part.type === 'json') pieces.push(formatJson(part.value));
    else if (part.type === 'image')
      pieces.push(`[image ${part.mediaType}, ${Buffer.byteLength(part.data, 'base64')} bytes]`);
    else pieces.push(part.text ?? `[resource ${part.uri}]`);
  }
  if (pieces.length === 0 && result.structuredContent !== undefined) {
    pieces.push(formatJson(result.structuredContent));
  }
  return pieces.join('\n');
}

/** `toolwire tools list`. */
export async function toolsListCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  json: boolean,
): Promise<void> {
  await withRegistry(ctx, config, async (registry) => {
    if (json) writeLine(ctx.stdout, formatJson(toolListDocument(registry)));
    else printToolList(ctx, registry);
  });
}

/** `toolwire tools call NAME --args JSON`. */
export async function toolsCallCommand(
  ctx: CliContext,
  config: ToolwireConfig,
  name: string,
  args: Record<string, unknown>,
  json: boolean,
): Promise<void> {
  await withRegistry(ctx, config, (registry) => callToolCommand(ctx, registry, name, args, json));
}
