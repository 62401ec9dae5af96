import { jsonrepair } from 'jsonrepair';
import { InvalidToolArgumentsError, type Issue } from './errors.js';
import { isPlainObject, schemaAcceptsNull, type JsonSchema } from './json-schema.js';
import { getSchemaValidator } from './schema-validator.js';

export interface ParseToolArgumentsOptions {
  /** Tool name for error messages. */
  toolName?: string;
  /**
   * Set when the provider reported that output stopped at a token limit: any incomplete JSON is
   * then treated as truncated, never repaired into something the model did not finish saying.
   */
  outputTruncated?: boolean;
  /**
   * Map `null` back to "absent" for optional properties whose schema does not accept null.
   * Adapters set this when they sent the OpenAI-strict dialect, which made optionals nullable.
   */
  nullMeansAbsent?: boolean;
  /** Try `jsonrepair` on malformed JSON (default true). */
  repair?: boolean;
}

export type ParseToolArgumentsResult<T> =
  | {
      success: true;
      value: T;
      /** True when the text was not valid JSON and was repaired (or unwrapped) to parse. */
      repaired: boolean;
      /** What was done to make the value usable, in words a log reader understands. */
      repairs: string[];
    }
  | { success: false; error: InvalidToolArgumentsError };

/**
 * Turns what a model produced as tool arguments (JSON text, or an object for providers that send
 * objects) into a validated value: parse → repair (reported) → null-to-absent mapping → validate.
 * Every failure is an `InvalidToolArgumentsError` whose message names the JSON pointer and what
 * was expected, so it can go straight back to the model.
 */
export function parseToolArguments<T = Record<string, unknown>>(
  schema: JsonSchema,
  raw: unknown,
  options: ParseToolArgumentsOptions = {},
): ParseToolArgumentsResult<T> {
  const toolName = options.toolName ?? 'tool';
  const repairs: string[] = [];
  const rawText = typeof raw === 'string' ? raw : undefined;
  let value: unknown = raw;

  if (typeof raw === 'string') {
    const parsed = parseJsonText(raw, options, repairs);
    if (!parsed.success) {
      return {
        success: false,
        error: new InvalidToolArgumentsError({
          toolName,
          problem: parsed.problem,
          issues: [{ pointer: '', message: parsed.message }],
          rawArguments: raw,
        }),
      };
    }
    value = parsed.value;
  } else if (raw === undefined || raw === null) {
    value = {};
    repairs.push('missing arguments treated as {}');
  }

  // A JSON object encoded twice ("{\"a\":1}") is a common small-model mistake.
  if (typeof value === 'string') {
    const inner = safeParse(value);
    if (isPlainObject(inner)) {
      value = inner;
      repairs.push('unwrapped a JSON object that was encoded as a string');
    }
  }

  if (!isPlainObject(value)) {
    return {
      success: false,
      error: new InvalidToolArgumentsError({
        toolName,
        problem: 'invalid',
        issues: [
          {
            pointer: '',
            message: `must be a JSON object (got ${describeType(value)})`,
            expected: 'object',
          },
        ],
        ...(rawText !== undefined ? { rawArguments: rawText } : {}),
      }),
    };
  }

  if (options.nullMeansAbsent) {
    const removed: string[] = [];
    value = stripNullsForOptionals(value, schema, '', removed);
    if (removed.length > 0) repairs.push(`null read as absent at ${removed.join(', ')}`);
  }

  const result = getSchemaValidator<T>(schema).validate(value);
  if (!result.success) {
    return {
      success: false,
      error: new InvalidToolArgumentsError({
        toolName,
        problem: 'invalid',
        issues: result.issues,
        ...(rawText !== undefined ? { rawArguments: rawText } : {}),
      }),
    };
  }
  return { success: true, value: result.value, repaired: repairs.length > 0, repairs };
}

type ParsedText =
  | { success: true; value: unknown }
  | { success: false; problem: 'truncated' | 'malformed'; message: string };

function parseJsonText(
  text: string,
  options: ParseToolArgumentsOptions,
  repairs: string[],
): ParsedText {
  const trimmed = text.trim();
  // Several providers send "" (or nothing) for a tool without parameters.
  if (trimmed === '') {
    repairs.push('empty arguments treated as {}');
    return { success: true, value: {} };
  }
  try {
    return { success: true, value: JSON.parse(trimmed) };
  } catch (error) {
    const shape = scanJsonPrefix(trimmed);
    const ended =
      shape.kind === 'incomplete' && (options.outputTruncated || !shape.onlyClosersMissing);
    if (ended) {
      return {
        success: false,
        problem: 'truncated',
        message: `JSON ends before the value is complete (${shape.kind === 'incomplete' ? shape.reason : 'incomplete'}); the output was probably cut off by a token limit. Send the complete arguments.`,
      };
    }
    if (options.repair !== false) {
      try {
        const repairedText = jsonrepair(trimmed);
        const value = JSON.parse(repairedText);
        repairs.push(
          shape.kind === 'incomplete'
            ? 'closed unclosed brackets'
            : `repaired malformed JSON (${firstLine((error as Error).message)})`,
        );
        return { success: true, value };
      } catch {
        // fall through to the malformed report
      }
    }
    return {
      success: false,
      problem: 'malformed',
      message: `not valid JSON: ${firstLine((error as Error).message)}. Send the arguments as one JSON object.`,
    };
  }
}

type PrefixShape =
  { kind: 'balanced' } | { kind: 'incomplete'; reason: string; onlyClosersMissing: boolean };

/**
 * Reads JSON-ish text as a prefix: if it ends inside a string, after a `:` or `,`, inside a
 * literal, or with brackets open, the value is incomplete. `onlyClosersMissing` is true when the
 * last token is complete and only closing brackets are missing (a fixable slip, not a cut-off).
 */
export function scanJsonPrefix(text: string): PrefixShape {
  const stack: string[] = [];
  let inString = false;
  let quote = '"';
  let escaped = false;
  let last = '';
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === quote) inString = false;
      continue;
    }
    if (char === '"' || char === "'") {
      inString = true;
      quote = char;
      last = char;
      continue;
    }
    if (char === '{' || char === '[') stack.push(char);
    else if (char === '}' || char === ']') {
      if (stack.length === 0) return { kind: 'balanced' };
      stack.pop();
    }
    if (!/\s/.test(char)) last = char;
  }
  if (inString) return { kind: 'incomplete', reason: 'inside a string', onlyClosersMissing: false };
  if (stack.length === 0) return { kind: 'balanced' };
  if (last === ':' || last === ',')
    return { kind: 'incomplete', reason: `after "${last}"`, onlyClosersMissing: false };
  if (/[a-z0-9.eE+-]/i.test(last)) {
    const tail = /[A-Za-z0-9.+-]+$/.exec(text.trimEnd())?.[0] ?? '';
    const complete = /^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)$/.test(tail);
    if (!complete)
      return { kind: 'incomplete', reason: 'inside a literal', onlyClosersMissing: false };
  }
  return {
    kind: 'incomplete',
    reason: `${stack.length} bracket(s) left open`,
    onlyClosersMissing: true,
  };
}

function stripNullsForOptionals(
  value: unknown,
  schema: JsonSchema | undefined,
  pointer: string,
  removed: string[],
): unknown {
  if (!schema || typeof schema !== 'object') return value;
  if (Array.isArray(value)) {
    const items = schema.items;
    if (isPlainObject(items))
      return value.map((item, i) =>
        stripNullsForOptionals(item, items, `${pointer}/${i}`, removed),
      );
    return value;
  }
  if (!isPlainObject(value) || !isPlainObject(schema.properties)) return value;
  const required = new Set(schema.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties[key];
    if (
      child === null &&
      childSchema !== undefined &&
      !required.has(key) &&
      !schemaAcceptsNull(childSchema)
    ) {
      removed.push(`${pointer}/${key}`);
      continue;
    }
    out[key] = stripNullsForOptionals(child, childSchema, `${pointer}/${key}`, removed);
  }
  return out;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/** Formats validation issues as the text a model sees in a tool error. */
export function describeIssuesForModel(issues: readonly Issue[]): string {
  return issues
    .map(
      (issue) =>
        `- ${issue.pointer || '(root)'}: ${issue.message}${issue.expected && !issue.message.includes(issue.expected) ? ` (expected ${issue.expected})` : ''}`,
    )
    .join('\n');
}
