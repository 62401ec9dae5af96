/**
 * Canonical JSON: object keys sorted at every depth (members whose value is `undefined` left out),
 * so equal values give equal text: cache keys of arguments, comparisons of tool definitions.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (record[key] === undefined) continue;
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(key)}:${canonicalJson(record[key])}`;
  }
  return `${out}}`;
}
