/**
 * Words that cannot name a function in the model's script: JavaScript's reserved words, plus the
 * globals the script relies on (shadowing `console` or `JSON` with a tool would break the script).
 */
const reservedNames = new Set([
  ...'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await async arguments eval undefined NaN Infinity'.split(
    ' ',
  ),
  ...'globalThis console JSON Math Object Array String Number Boolean Symbol Promise Error TypeError RangeError SyntaxError Date RegExp Map Set WeakMap WeakSet BigInt Proxy Reflect tools'.split(
    ' ',
  ),
]);

/** Turns any tool name into a valid, unreserved JavaScript identifier (not yet de-duplicated). */
export function toIdentifier(name: string): string {
  let identifier = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (identifier === '') identifier = '_';
  if (/^[0-9]/.test(identifier)) identifier = `_${identifier}`;
  if (reservedNames.has(identifier)) identifier = `${identifier}_`;
  return identifier;
}

/** Whether `name` can be written as-is as a property key or binding. */
export function isIdentifier(name: string): boolean {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
}

/**
 * Maps tool names to identifiers, one to one. Names that sanitise to the same identifier get
 * `_2`, `_3`, … in the order of their original names (sorted), so the mapping does not depend on
 * the order a server listed its tools in.
 */
export function createIdentifierMap(names: readonly string[]): Map<string, string> {
  const unique = [...new Set(names)].sort();
  const taken = new Set<string>();
  const byName = new Map<string, string>();
  // Names that are already clean identifiers keep them: reserve those first.
  for (const name of unique) {
    const identifier = toIdentifier(name);
    if (identifier === name) {
      taken.add(identifier);
      byName.set(name, identifier);
    }
  }
  for (const name of unique) {
    if (byName.has(name)) continue;
    const base = toIdentifier(name);
    let identifier = base;
    for (let n = 2; taken.has(identifier); n++) identifier = `${base}_${n}`;
    taken.add(identifier);
    byName.set(name, identifier);
  }
  return new Map(names.map((name) => [name, byName.get(name)!]));
}

/** `get_weather` → `GetWeather`: a prefix for the names of a tool's types. */
export function toTypeName(identifier: string): string {
  const pascal = identifier
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
  if (pascal === '') return 'T';
  return /^[0-9]/.test(pascal) ? `T${pascal}` : pascal;
}
