import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { HEADER_MISMATCH, isRecord } from './json-rpc.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  LEGACY_PROTOCOLS,
  MODERN_PROTOCOL,
  NAME_PARAM,
  PROTOCOL_META_KEY,
  SUPPORTED_PROTOCOLS,
  UNSUPPORTED_PROTOCOL_VERSION,
} from './mcp-protocol.js';

/** The era of a POST, or the refusal (HTTP status and JSON-RPC error) it gets. */
export type Era =
  | { kind: 'modern' | 'legacy' }
  | { kind: 'reject'; status: number; error: { code: number; message: string; data?: unknown } };

/** Why the `Mcp-Method` / `Mcp-Name` headers disagree with the body, if they do. */
function headerMismatch(
  req: IncomingMessage,
  request: Record<string, unknown>,
): string | undefined {
  const method = req.headers['mcp-method'];
  if (typeof method === 'string' && method !== request.method) {
    return `the body carries method "${String(request.method)}" but the Mcp-Method header names "${method}"`;
  }
  const key = typeof request.method === 'string' ? NAME_PARAM[request.method] : undefined;
  if (!key) return undefined;
  const value = isRecord(request.params) ? request.params[key] : undefined;
  const header = req.headers['mcp-name'];
  if (typeof value === 'string' && typeof header === 'string' && header !== value) {
    return `the body carries params.${key}="${value}" but the Mcp-Name header names "${header}"`;
  }
  if (typeof value === 'string' && header === undefined) {
    return `the body carries params.${key}="${value}" but the required Mcp-Name header is absent`;
  }
  return undefined;
}

/**
 * Which era a POST belongs to. A well-formed 2026-07-28 request (headers and `_meta` envelope
 * agree) is recognised by a few comparisons; anything else that claims the modern revision, or
 * names a revision we do not know, goes through the SDK's own inbound validation ladder
 * (`classifyInboundRequest`), so rejections carry the spec's exact codes and HTTP statuses.
 */
export function classifyEra(req: IncomingMessage, message: Record<string, unknown>): Era {
  const versionHeader = req.headers['mcp-protocol-version'];
  const meta =
    isRecord(message.params) && isRecord(message.params._meta) ? message.params._meta : undefined;
  const envelopeVersion = meta?.[PROTOCOL_META_KEY];
  const method = req.headers['mcp-method'];
  if (
    versionHeader === MODERN_PROTOCOL &&
    envelopeVersion === MODERN_PROTOCOL &&
    isRecord(meta?.[CLIENT_CAPABILITIES_META_KEY]) &&
    typeof message.method === 'string' &&
    method === message.method &&
    headerMismatch(req, message) === undefined
  ) {
    return { kind: 'modern' };
  }
  const legacyHeader =
    versionHeader === undefined ||
    (LEGACY_PROTOCOLS as readonly string[]).includes(String(versionHeader));
  if (legacyHeader && envelopeVersion === undefined && method === undefined)
    return { kind: 'legacy' };
  const outcome = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: typeof versionHeader === 'string' ? versionHeader : undefined,
    mcpMethodHeader: typeof method === 'string' ? method : undefined,
    mcpNameHeader:
      typeof req.headers['mcp-name'] === 'string' ? req.headers['mcp-name'] : undefined,
    body: message,
  });
  if (outcome.kind === 'reject') {
    return {
      kind: 'reject',
      status: outcome.httpStatus,
      error:
        outcome.data === undefined
          ? { code: outcome.code, message: outcome.message }
          : { code: outcome.code, message: outcome.message, data: outcome.data },
    };
  }
  if (outcome.kind === 'legacy') return { kind: 'legacy' };
  const revision = outcome.classification.revision;
  if (revision !== MODERN_PROTOCOL) {
    return {
      kind: 'reject',
      status: 400,
      error: {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        message: `Unsupported protocol version: ${String(revision)}`,
        data: { supported: SUPPORTED_PROTOCOLS, requested: revision },
      },
    };
  }
  const mismatch =
    method === undefined && typeof message.method === 'string'
      ? `the body names method ${message.method} but the required Mcp-Method header is absent`
      : headerMismatch(req, message);
  if (mismatch) {
    return {
      kind: 'reject',
      status: 400,
      error: {
        code: HEADER_MISMATCH,
        message: `Bad Request: the request headers and body disagree: ${mismatch}`,
        data: { mismatch },
      },
    };
  }
  return { kind: 'modern' };
}
