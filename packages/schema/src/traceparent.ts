/** The fields of a W3C Trace Context `traceparent` header (version 00). */
export interface TraceparentFields {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/;
const ZEROS = /^0+$/;

/**
 * Reads a W3C `traceparent` header (`00-<trace id>-<span id>-<flags>`); undefined for anything
 * else: a malformed value, the invalid version `ff`, or an all-zero trace or span id.
 */
export function parseTraceparent(header: string | undefined): TraceparentFields | undefined {
  const match = header === undefined ? null : TRACEPARENT.exec(header.trim());
  if (!match || match[1] === 'ff' || ZEROS.test(match[2]!) || ZEROS.test(match[3]!))
    return undefined;
  return { traceId: match[2]!, spanId: match[3]!, traceFlags: Number.parseInt(match[4]!, 16) };
}

/** A `traceparent` header for a span (version 00). */
export function formatTraceparent(fields: TraceparentFields): string {
  return `00-${fields.traceId}-${fields.spanId}-${fields.traceFlags.toString(16).padStart(2, '0')}`;
}
