import {
  toolContent,
  type AnyTool,
  type JsonSchema,
  type ToolContentOutput,
  type ToolExecutionContext,
} from '@toolwire/schema';
import { formatDiagnostics } from './code-diagnostic.js';
import type { CodeRunResult } from './code-mode-types.js';

export const EXECUTE_CODE_TOOL_NAME = 'execute_code';

/**
 * The `execute_code` tool: runs the code it is given and answers with what happened. The caller
 * may bound a run with its own `timeoutMs`, up to `maxTimeoutMs` (the code mode's limit, also the
 * default); more is cut to the limit rather than refused.
 */
export function createExecuteCodeTool(
  name: string,
  description: string,
  maxTimeoutMs: number,
  run: (
    code: string,
    context: ToolExecutionContext,
    timeoutMs: number | undefined,
  ) => Promise<CodeRunResult>,
): AnyTool {
  return {
    name,
    description,
    inputSchema: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'TypeScript function body',
        },
        timeoutMs: {
          type: 'integer',
          minimum: 1,
          description: `Stop the run after this many milliseconds, tool calls included (default and most: ${maxTimeoutMs})`,
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    outputSchema: EXECUTE_CODE_OUTPUT_SCHEMA,
    execute: async (
      args: { code: string; timeoutMs?: number },
      context,
    ): Promise<ToolContentOutput> => {
      const timeoutMs =
        typeof args.timeoutMs === 'number' && args.timeoutMs >= 1
          ? Math.min(Math.floor(args.timeoutMs), maxTimeoutMs)
          : undefined;
      // A host that knows who called (the forwarder) passes their tools: the code calls as them.
      const result = await run(args.code, context, timeoutMs);
      return toolContent([{ type: 'text', text: formatRunResult(result) }], {
        isError: !result.ok,
        structuredContent: structuredRunResult(result),
      });
    },
  };
}

/**
 * The `outputSchema` of `execute_code`: what MCP clients of the gateway get as `structuredContent`
 * beside the text the model reads.
 */
export const EXECUTE_CODE_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'Whether the code ran to the end' },
    output: {
      type: 'string',
      description: 'The console output, one line per console call (warn/error lines prefixed)',
    },
    returned: { description: 'The value the code returned (null when nothing, or when it failed)' },
    logs: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          level: { type: 'string', enum: ['log', 'info', 'warn', 'error', 'debug'] },
          message: { type: 'string' },
        },
        required: ['level', 'message'],
      },
    },
    toolCalls: {
      type: 'array',
      description: 'The tool calls the code made, in order',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          outcome: { type: 'string', enum: ['ok', 'error', 'cancelled'] },
          durationMs: { type: 'number' },
          error: {
            type: 'object',
            properties: { message: { type: 'string' }, category: { type: 'string' } },
            required: ['message', 'category'],
          },
        },
        required: ['name', 'outcome', 'durationMs'],
      },
    },
    error: {
      type: 'object',
      description: 'Why the run failed (absent when it succeeded)',
      properties: {
        kind: { type: 'string' },
        message: { type: 'string' },
        line: { type: 'integer' },
        column: { type: 'integer' },
        tool: { type: 'string' },
      },
      required: ['kind', 'message'],
    },
    diagnostics: {
      type: 'array',
      description: 'Type errors found before running',
      items: {
        type: 'object',
        properties: {
          line: { type: 'integer' },
          column: { type: 'integer' },
          code: { type: 'integer' },
          message: { type: 'string' },
          origin: { type: 'string', enum: ['script', 'declarations'] },
        },
        required: ['line', 'column', 'code', 'message', 'origin'],
      },
    },
  },
  required: ['ok', 'output', 'returned', 'logs', 'toolCalls'],
};

/** A run as `execute_code`'s `structuredContent` (matches `EXECUTE_CODE_OUTPUT_SCHEMA`). */
export function structuredRunResult(result: CodeRunResult): Record<string, unknown> {
  return {
    ok: result.ok,
    output: result.logs
      .map((log) =>
        log.level === 'log' || log.level === 'info' ? log.message : `[${log.level}] ${log.message}`,
      )
      .join('\n'),
    returned: result.ok ? (result.value ?? null) : null,
    logs: result.logs.map((log) => ({ level: log.level, message: log.message })),
    toolCalls: result.toolCalls.map((call) => ({
      name: call.name,
      outcome: call.outcome,
      durationMs: call.durationMs,
      ...(call.error
        ? { error: { message: call.error.message, category: call.error.category } }
        : {}),
    })),
    ...(result.error ? { error: result.error } : {}),
    ...(result.diagnostics.length > 0
      ? {
          diagnostics: result.diagnostics.map((d) => ({
            line: d.line,
            column: d.column,
            code: d.code,
            message: d.message,
            origin: d.origin,
          })),
        }
      : {}),
  };
}

/** The text a model reads after a run. */
export function formatRunResult(result: CodeRunResult): string {
  const sections: string[] = [];
  if (result.error) sections.push(`Error (${result.error.kind}): ${result.error.message}`);
  else if (result.diagnostics.length > 0)
    sections.push(`Type warnings:\n${formatDiagnostics(result.diagnostics)}`);
  if (result.logs.length > 0) {
    const lines = result.logs.map((log) =>
      log.level === 'log' ? log.message : `[${log.level}] ${log.message}`,
    );
    sections.push(
      `Console output:\n${lines.join('\n')}${result.logsTruncated ? '\n[further output was dropped]' : ''}`,
    );
  }
  if (result.ok)
    sections.push(
      `Returned value:\n${result.value === undefined ? 'undefined' : JSON.stringify(result.value, null, 2)}`,
    );
  else if (result.toolCalls.length > 0) {
    sections.push(
      `Tool calls made before the failure:\n${result.toolCalls
        .map(
          (call) =>
            `- ${call.name}: ${call.outcome}${call.error ? ` (${call.error.message})` : ''}`,
        )
        .join('\n')}`,
    );
  }
  return sections.join('\n\n');
}
