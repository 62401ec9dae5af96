import {
  parseJSONRPCMessage,
  STDIO_DEFAULT_MAX_BUFFER_SIZE,
  type JSONRPCMessage,
} from '@modelcontextprotocol/client';

/** The most a server may write without a newline (the SDK's stdio limit). */
export const MAX_LINE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/**
 * Newline-delimited JSON-RPC, as MCP's stdio transport frames it, read from a byte stream.
 *
 * It accepts exactly what the official SDK's `ReadBuffer` accepts (lines that are not JSON are
 * skipped, as servers that log to stdout need; JSON that is not a JSON-RPC message throws the SDK's
 * own error), but checks the common messages by hand before handing the rest to the SDK's schema:
 * that schema (a union of four strict objects) costs more than the rest of a call's client work.
 * Every message the hand check lets through is one the SDK's schema accepts unchanged
 * (`json-rpc-lines.test.ts` holds the two side by side on generated messages).
 */
export class JsonRpcLines {
  private pending: Buffer | undefined;

  /** Adds bytes as they arrive; throws (and forgets what it held) past `MAX_LINE_BYTES`. */
  append(chunk: Buffer): void {
    if ((this.pending?.length ?? 0) + chunk.length > MAX_LINE_BYTES) {
      this.pending = undefined;
      throw new Error(`a server wrote more than ${MAX_LINE_BYTES} bytes without a newline`);
    }
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
  }

  /** The next complete message, or `null` until more bytes arrive. Throws for a non-message. */
  next(): JSONRPCMessage | null {
    while (this.pending) {
      const end = this.pending.indexOf(10);
      if (end === -1) return null;
      // A newline byte is never inside a multi-byte UTF-8 character: the line decodes whole.
      const stop = end > 0 && this.pending[end - 1] === 13 ? end - 1 : end;
      const line = this.pending.toString('utf8', 0, stop);
      this.pending = end + 1 < this.pending.length ? this.pending.subarray(end + 1) : undefined;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      return toJsonRpcMessage(value);
    }
    return null;
  }

  clear(): void {
    this.pending = undefined;
  }
}

/** A parsed value as a JSON-RPC message: the hand check, else the SDK's schema (which may throw). */
export function toJsonRpcMessage(value: unknown): JSONRPCMessage {
  return isCommonMessage(value) ? (value as JSONRPCMessage) : parseJSONRPCMessage(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): boolean {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** `params` or `result` the schema takes as is: an object whose `_meta`, if any, is left to it. */
function isPlainBody(value: unknown): boolean {
  return isPlainObject(value) && !('_meta' in value);
}

/**
 * A request, notification, result or error with only the members JSON-RPC defines and no `_meta`
 * (whose members the SDK's schema checks): a subset of what that schema accepts, so the answer
 * "no" only means "ask the schema".
 */
function isCommonMessage(value: unknown): boolean {
  if (!isPlainObject(value) || value.jsonrpc !== '2.0') return false;
  let members = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    members++;
  }
  const hasId = 'id' in value;
  if (hasId && !isId(value.id)) return false;
  if ('method' in value) {
    if (typeof value.method !== 'string') return false;
    const hasParams = 'params' in value;
    if (hasParams && !isPlainBody(value.params)) return false;
    return members === 2 + (hasId ? 1 : 0) + (hasParams ? 1 : 0);
  }
  if ('result' in value) return hasId && members === 3 && isPlainBody(value.result);
  if ('error' in value) {
    const error = value.error;
    if (!isPlainObject(error) || !Number.isSafeInteger(error.code)) return false;
    if (typeof error.message !== 'string') return false;
    let errorMembers = 0;
    for (const key in error) {
      if (!Object.hasOwn(error, key) || (key !== 'code' && key !== 'message' && key !== 'data'))
        return false;
      errorMembers++;
    }
    return errorMembers >= 2 && members === 2 + (hasId ? 1 : 0);
  }
  return false;
}
