import { ToolExecutionError, ToolwireError, type ToolErrorCategory } from '@toolwire/schema';

/** JSON-RPC 2.0 shapes and the error codes the forwarder answers with. */
export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id?: JsonRpcId | null;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  result?: unknown;
  error?: JsonRpcError;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** 2026-07-28: `Mcp-Method` / `Mcp-Name` headers disagree with the body. */
export const HEADER_MISMATCH = -32020;
/** Implementation-defined server errors (-32000 to -32099). */
export const UNAUTHORIZED = -32001;
export const POLICY_REFUSED = -32003;
export const RATE_LIMITED = -32029;
export const UPSTREAM_UNAVAILABLE = -32050;
export const UPSTREAM_TIMEOUT = -32051;
const RESOURCE_NOT_FOUND = -32002;

/** The `code` (a `ToolwireError` code) of each JSON-RPC error code the forwarder answers with. */
const FAULT_CODES: Record<number, string> = {
  [PARSE_ERROR]: 'parse_error',
  [INVALID_REQUEST]: 'invalid_request',
  [METHOD_NOT_FOUND]: 'method_not_found',
  [INVALID_PARAMS]: 'invalid_params',
  [INTERNAL_ERROR]: 'internal_error',
  [HEADER_MISMATCH]: 'header_mismatch',
  [UNAUTHORIZED]: 'unauthorized',
  [POLICY_REFUSED]: 'policy_refused',
  [RATE_LIMITED]: 'rate_limited',
  [UPSTREAM_UNAVAILABLE]: 'upstream_unavailable',
  [UPSTREAM_TIMEOUT]: 'upstream_timeout',
  [RESOURCE_NOT_FOUND]: 'resource_not_found',
};

/**
 * A JSON-RPC error raised inside request handling; the dispatcher answers with it. `rpcCode` is
 * the JSON-RPC code on the wire; `code` names it (`policy_refused`, `rate_limited`, …, else
 * `jsonrpc_<number>`).
 */
export class JsonRpcFault extends ToolwireError {
  readonly rpcCode: number;
  readonly data: unknown;
  constructor(rpcCode: number, message: string, data?: unknown) {
    super(FAULT_CODES[rpcCode] ?? `jsonrpc_${rpcCode}`, { message });
    this.name = 'JsonRpcFault';
    this.rpcCode = rpcCode;
    this.data = data;
  }
  toError(): JsonRpcError {
    return this.data === undefined
      ? { code: this.rpcCode, message: this.message }
      : { code: this.rpcCode, message: this.message, data: this.data };
  }
}

/**
 * What a client hears of a tool, prompt or resource it may not reach: the very answer it gets for
 * one that does not exist (SPEC: the policy detail goes to the audit log, not to the client), so a
 * limited token cannot tell which exist.
 */
export function unknownTool(name: string): JsonRpcFault {
  return new JsonRpcFault(INVALID_PARAMS, `Unknown tool: ${name}`, { tool: name });
}

/** `unknownTool` for prompts (`prompts/get`, a prompt's completion). */
export function unknownPrompt(name: string): JsonRpcFault {
  return new JsonRpcFault(INVALID_PARAMS, `Unknown prompt: ${name}`);
}

/** `unknownTool` for resources (read, subscribe, a template's completion). */
export function resourceNotFound(uri: string): JsonRpcFault {
  return new JsonRpcFault(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}

/** A JSON-RPC error answer. */
export function errorResponse(
  code: number,
  message: string,
  id: JsonRpcId | null = null,
): JsonRpcResponse & { error: JsonRpcError } {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Why a JSON-RPC batch (an array body) is refused. */
export const BATCHES_REFUSED =
  'Invalid Request: JSON-RPC batches are not supported (removed from MCP in 2025-06-18)';

/** What a model is told a refused or failed call was (the seeds' tool-error categories). */
const FAULT_CATEGORY: Partial<Record<number, ToolErrorCategory>> = {
  [POLICY_REFUSED]: 'permissionDenied',
  [RATE_LIMITED]: 'rateLimited',
  [INVALID_PARAMS]: 'invalidArguments',
  [UPSTREAM_TIMEOUT]: 'executionTimeout',
  [UPSTREAM_UNAVAILABLE]: 'networkError',
};

/**
 * A fault of the call pipeline as the tool error a model reads, for tools called on someone's
 * behalf (a script's calls, a chat endpoint's): category from the code, `data` as details.
 */
export function toolErrorOf(fault: JsonRpcFault): ToolExecutionError {
  return new ToolExecutionError({
    category: FAULT_CATEGORY[fault.rpcCode] ?? 'unknown',
    message: fault.message,
    ...(isRecord(fault.data) ? { details: fault.data } : {}),
    cause: fault,
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why a message's `id` is not a JSON-RPC id MCP accepts (a string or an integer; MCP forbids
 * `null`), or `undefined` when it has none (a notification) or a good one.
 */
export function invalidIdReason(message: Record<string, unknown>): string | undefined {
  if (!('id' in message) || message.id === undefined) return undefined;
  const id = message.id;
  if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))
    return undefined;
  return `Invalid Request: id must be a string or an integer, not ${id === null ? 'null' : Array.isArray(id) ? 'an array' : typeof id === 'number' ? String(id) : `a${typeof id === 'object' ? 'n object' : ` ${typeof id}`}`}`;
}
