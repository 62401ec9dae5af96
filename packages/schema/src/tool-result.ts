import {
  ToolExecutionError,
  InvalidToolArgumentsError,
  NoSuchToolError,
  CancelledError,
  TimeoutError,
} from './errors.js';
import { ToolwireError, errorMessage } from './toolwire-error.js';
import type { ToolErrorCategory } from './tool-error-category.js';
import { describeIssuesForModel } from './parse-tool-arguments.js';

export interface TextPart {
  type: 'text';
  text: string;
}

export interface JsonPart {
  type: 'json';
  value: unknown;
}

export interface ImagePart {
  type: 'image';
  /** Base64 without a data: prefix. */
  data: string;
  mediaType: string;
}

/** A resource embedded in a tool result (MCP `resource` / `resource_link`). */
export interface ResourcePart {
  type: 'resource';
  uri: string;
  mimeType?: string;
  text?: string;
  /** Base64 blob, when binary. */
  blob?: string;
}

export type ToolResultPart = TextPart | JsonPart | ImagePart | ResourcePart;

export interface ToolFailure {
  category: ToolErrorCategory;
  message: string;
  details?: Record<string, unknown>;
}

export interface ToolResult {
  toolCallId: string;
  toolName: string;
  content: ToolResultPart[];
  isError: boolean;
  /** Set when `isError`: what went wrong, in the seed's categories. */
  error?: ToolFailure;
  /** Structured output (MCP `structuredContent`), when the tool gave one. */
  structuredContent?: unknown;
  /** How long the call took, when measured. */
  durationMs?: number;
}

export function textResult(toolCallId: string, toolName: string, text: string): ToolResult {
  return { toolCallId, toolName, content: [{ type: 'text', text }], isError: false };
}

/** A successful result from any value: strings become text, everything else JSON. */
export function valueResult(toolCallId: string, toolName: string, value: unknown): ToolResult {
  if (typeof value === 'string') return textResult(toolCallId, toolName, value);
  return {
    toolCallId,
    toolName,
    content: [{ type: 'json', value: value === undefined ? null : value }],
    isError: false,
    ...(value !== undefined && value !== null && typeof value === 'object'
      ? { structuredContent: value }
      : {}),
  };
}

export function errorResult(
  toolCallId: string,
  toolName: string,
  failure: ToolFailure,
): ToolResult {
  return {
    toolCallId,
    toolName,
    content: [{ type: 'text', text: failureText(failure) }],
    isError: true,
    error: failure,
  };
}

/** The explicit result a call gets when its turn was cancelled before it produced one. */
export function cancelledResult(
  toolCallId: string,
  toolName: string,
  reason = 'The tool call was cancelled before it finished.',
): ToolResult {
  return errorResult(toolCallId, toolName, { category: 'cancelled', message: reason });
}

/** The text a model reads for a failure (seed 001 `toLLMFormat`). */
export function failureText(failure: ToolFailure): string {
  let text = `Tool execution failed (${failure.category}): ${failure.message}`;
  if (failure.details && Object.keys(failure.details).length > 0) {
    text += `\nDetails: ${Object.entries(failure.details)
      .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
      .join(', ')}`;
  }
  return text;
}

/** Classifies anything thrown by a tool into a failure a model can act on. */
export function toolFailureFromError(error: unknown): ToolFailure {
  if (
    error instanceof ToolExecutionError ||
    (ToolwireError.isInstance(error) && 'category' in error)
  ) {
    const e = error as ToolExecutionError;
    return {
      category: e.category,
      message: e.message,
      ...(e.details ? { details: { ...e.details } } : {}),
    };
  }
  if (error instanceof InvalidToolArgumentsError) {
    return {
      category: 'invalidArguments',
      message: `${error.message}`,
      details: { problem: error.problem, issues: describeIssuesForModel(error.issues) },
    };
  }
  if (error instanceof NoSuchToolError)
    return { category: 'resourceNotFound', message: error.message };
  if (error instanceof CancelledError) return { category: 'cancelled', message: error.message };
  if (error instanceof TimeoutError)
    return { category: 'executionTimeout', message: error.message };
  if (error instanceof Error && error.name === 'AbortError')
    return { category: 'cancelled', message: error.message || 'cancelled' };
  const code = (error as { code?: unknown } | null)?.code;
  if (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ENOTFOUND' ||
    code === 'EPIPE' ||
    code === 'ETIMEDOUT'
  ) {
    return { category: 'networkError', message: errorMessage(error) };
  }
  if (code === 'EACCES' || code === 'EPERM')
    return { category: 'permissionDenied', message: errorMessage(error) };
  if (code === 'ENOENT') return { category: 'resourceNotFound', message: errorMessage(error) };
  return { category: 'unknown', message: errorMessage(error) };
}

export interface ToolResultTextOptions {
  /**
   * The text an image part becomes; `undefined` leaves it out. Default: a short placeholder that
   * says what was there (never base64 in text).
   */
  imageText?: (image: ImagePart) => string | undefined;
  /**
   * Say in the text that the call failed, for wire formats whose tool messages have no error flag
   * (Chat Completions, Ollama): a failure's text starts with "Tool execution failed", and an empty
   * result says whether it failed or returned nothing.
   */
  markFailure?: boolean;
}

/** The approximate size of base64 data, in bytes. */
export function base64Bytes(base64: string): number {
  return Math.round((base64.length * 3) / 4);
}

const FAILURE_PREFIX = 'Tool execution failed';

/**
 * The one text rendering of a result, for providers or UIs that accept only text: parts joined
 * by newlines (JSON as JSON text, a resource as its text or a placeholder naming it).
 */
export function toolResultText(result: ToolResult, options: ToolResultTextOptions = {}): string {
  const imageText =
    options.imageText ??
    ((part: ImagePart) =>
      `[image: ${part.mediaType}, ${base64Bytes(part.data)} bytes, not shown: this model does not accept images in tool results]`);
  const pieces: string[] = [];
  for (const part of result.content) {
    const piece = part.type === 'image' ? imageText(part) : partText(part);
    if (piece !== undefined) pieces.push(piece);
  }
  const text = pieces.join('\n');
  if (!options.markFailure) return text;
  if (text === '') return result.isError ? `${FAILURE_PREFIX}.` : '(the tool returned no content)';
  return result.isError && !text.startsWith(FAILURE_PREFIX) ? `${FAILURE_PREFIX}: ${text}` : text;
}

function partText(part: TextPart | JsonPart | ResourcePart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'json':
      return JSON.stringify(part.value);
    case 'resource':
      return part.text ?? `[resource ${part.uri}${part.mimeType ? ` (${part.mimeType})` : ''}]`;
  }
}
