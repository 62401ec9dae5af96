import {
  Client,
  type CallToolRequestOptions,
  type CallToolResult,
  type StandardSchemaV1,
} from '@modelcontextprotocol/client';

/** What the SDK's era codec answers for a result (`WireCodec.validateResult`). */
type ResultOutcome =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'not-in-era' | 'invalid' | (string & {}); message?: string };

/** The part of the SDK's era codec this module uses. */
export interface ResultCodec {
  validateResult(method: string, raw: unknown): ResultOutcome;
}

/**
 * The official SDK client, with `tools/call` by way of `request()` and a result check built once
 * per era codec.
 *
 * `Client.callTool` asks `request()` to find the method's result check for every call, and finding
 * it validates `undefined` against the result schema and formats the failure: about 10 µs a call
 * on the machines we measure, a tenth of a stdio round trip. On a 2025-era connection `callTool`
 * adds nothing else here (the registry leaves output schemas out of the definition it passes, and
 * checks structured content itself), so the call below is the same exchange with the same checks.
 * 2026-era connections go through `callTool` (it mirrors parameters into HTTP headers there).
 */
export class RegistryClient extends Client {
  callToolResult(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    options: CallToolRequestOptions,
  ): Promise<CallToolResult> {
    if (this.getProtocolEra() !== 'legacy') return this.callTool(params, options);
    const { toolDefinition: _definition, ...requestOptions } = options;
    return this.request(
      { method: 'tools/call', params },
      callToolResultSchema(this._wireCodec() as ResultCodec),
      requestOptions,
    );
  }
}

const schemas = new WeakMap<ResultCodec, StandardSchemaV1<unknown, CallToolResult>>();

/**
 * The codec's own `tools/call` result check as a Standard Schema (what the SDK builds per call),
 * with the most common result (text blocks only, nothing the codec would rewrite) accepted as it
 * is first: the codec would return it unchanged.
 */
export function callToolResultSchema(
  codec: ResultCodec,
): StandardSchemaV1<unknown, CallToolResult> {
  let schema = schemas.get(codec);
  if (schema === undefined) {
    schema = {
      '~standard': {
        version: 1,
        vendor: 'toolwire',
        validate(value: unknown) {
          if (isTextResult(value)) return { value: value as CallToolResult };
          const outcome = codec.validateResult('tools/call', value);
          if (outcome.ok) return { value: outcome.value as CallToolResult };
          return {
            issues: [
              {
                message:
                  outcome.reason === 'invalid'
                    ? (outcome.message ?? 'invalid')
                    : `not-in-era: tools/call`,
              },
            ],
          };
        },
      },
    };
    schemas.set(codec, schema);
  }
  return schema;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `{ content: [{ type: 'text', text }...], isError?, structuredContent? }` and nothing else: the
 * 2025 result schema passes it through unchanged (it strips unknown members of a block, and
 * defaults or rewrites a result without `content`, so those go to the codec).
 */
function isTextResult(value: unknown): boolean {
  if (!isPlainObject(value) || !Array.isArray(value.content)) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    if (key === 'content') continue;
    if (key === 'isError' && typeof value.isError === 'boolean') continue;
    if (key === 'structuredContent' && isPlainObject(value.structuredContent)) continue;
    return false;
  }
  for (const block of value.content as unknown[]) {
    if (!isPlainObject(block) || block.type !== 'text' || typeof block.text !== 'string')
      return false;
    for (const key in block) if (key !== 'type' && key !== 'text') return false;
  }
  return true;
}
