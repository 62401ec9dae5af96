import { md5 } from '@noble/hashes/legacy.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { defineTool, ToolExecutionError, type AnyTool } from '@toolwire/schema';
import { evaluateExpression, ExpressionError } from './calculate.js';
import { ConfigError } from './errors.js';

/** `hash {data, algorithm: sha256|md5|base64}` (seed 000). */
export const hashTool = defineTool({
  name: 'hash',
  description:
    'Hash or encode text: sha256 or md5 give a lowercase hex digest, base64 gives the base64 encoding of the UTF-8 text.',
  inputSchema: {
    type: 'object',
    properties: {
      data: { type: 'string', description: 'The text to hash or encode.' },
      algorithm: {
        type: 'string',
        enum: ['sha256', 'md5', 'base64'],
        description: 'sha256, md5 or base64.',
      },
    },
    required: ['data', 'algorithm'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { algorithm: { type: 'string' }, result: { type: 'string' } },
    required: ['algorithm', 'result'],
  },
  annotations: { title: 'Hash', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  execute: ({ data, algorithm }) => {
    const bytes = utf8ToBytes(String(data));
    const result =
      algorithm === 'base64'
        ? base64(bytes)
        : bytesToHex(algorithm === 'md5' ? md5(bytes) : sha256(bytes));
    return { algorithm: String(algorithm), result };
  },
});

/** Standard base64 of bytes, without `Buffer` (the root entry runs outside Node too). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}

/** `time {name: get_time_utc|parse_time, time_string?}` (seed 000). */
export const timeTool = defineTool({
  name: 'time',
  description:
    'Get the current UTC time (name "get_time_utc"), or parse a date/time string such as "2026-07-28T10:00:00+02:00" or a Unix timestamp into UTC (name "parse_time" with time_string).',
  inputSchema: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        enum: ['get_time_utc', 'parse_time'],
        description: 'get_time_utc or parse_time.',
      },
      time_string: {
        type: 'string',
        description:
          'For parse_time: an ISO 8601 / RFC 2822 date-time, or a Unix timestamp in seconds or milliseconds.',
      },
    },
    required: ['name'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      utc: { type: 'string', description: 'ISO 8601 in UTC' },
      unixSeconds: { type: 'number' },
      unixMilliseconds: { type: 'number' },
    },
    required: ['utc', 'unixSeconds', 'unixMilliseconds'],
  },
  annotations: { title: 'Time', readOnlyHint: true, openWorldHint: false },
  execute: ({ name, time_string }) => {
    let date: Date;
    if (name === 'get_time_utc') date = new Date();
    else {
      if (typeof time_string !== 'string' || time_string.trim() === '') {
        throw new ToolExecutionError({
          category: 'invalidArguments',
          message: 'parse_time needs time_string (e.g. "2026-07-28T10:00:00Z")',
        });
      }
      date = parseTime(time_string.trim());
    }
    const ms = date.getTime();
    return { utc: date.toISOString(), unixSeconds: Math.floor(ms / 1000), unixMilliseconds: ms };
  },
});

function parseTime(text: string): Date {
  if (/^-?\d+(\.\d+)?$/.test(text)) {
    const number = Number(text);
    // Ten digits or fewer read as seconds (until the year 2286); more as milliseconds.
    return new Date(Math.abs(number) < 1e11 ? number * 1000 : number);
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) {
    throw new ToolExecutionError({
      category: 'invalidArguments',
      message: `cannot parse time_string ${JSON.stringify(text)}; use ISO 8601 (2026-07-28T10:00:00Z), RFC 2822 or a Unix timestamp`,
    });
  }
  return new Date(ms);
}

/** `calculate {expression}` (seed 000): a real expression parser, never `eval`. */
export const calculateTool = defineTool({
  name: 'calculate',
  description:
    'Evaluate an arithmetic expression exactly as written: + - * / % ^ (power), parentheses, factorial (!), constants pi, e, tau and functions sqrt, abs, sin, cos, tan, ln, log, log2, exp, floor, ceil, round, min, max, pow, hypot.',
  inputSchema: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        description: 'For example "2 * (3 + 4) ^ 2" or "sqrt(2) / 2".',
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { expression: { type: 'string' }, result: { type: 'number' } },
    required: ['expression', 'result'],
  },
  annotations: {
    title: 'Calculate',
    readOnlyHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  execute: ({ expression }) => {
    try {
      return { expression: String(expression), result: evaluateExpression(String(expression)) };
    } catch (error) {
      if (error instanceof ExpressionError) {
        throw new ToolExecutionError({
          category: 'invalidArguments',
          message: `cannot evaluate ${JSON.stringify(expression)}: ${error.message}`,
          cause: error,
        });
      }
      throw error;
    }
  },
});

/** The built-in tools, by name. */
export const nativeTools = {
  hash: hashTool as AnyTool,
  time: timeTool as AnyTool,
  calculate: calculateTool as AnyTool,
};

/** The built-in tools named (default: all three, in the order hash, time, calculate). */
export function createNativeTools(
  names: readonly string[] = ['hash', 'time', 'calculate'],
): AnyTool[] {
  return names.map((name) => {
    const tool = (nativeTools as Record<string, AnyTool>)[name];
    if (!tool)
      throw new ConfigError({
        path: 'nativeTools',
        problem: `unknown native tool "${name}" (known: hash, time, calculate)`,
      });
    return tool;
  });
}
