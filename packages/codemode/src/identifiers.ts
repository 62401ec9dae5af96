/**
 * Words that cannot name a function in the model's script: JavaScript's reserved words, and every
 * global of the sandbox and of the ES2022 lib the script is checked against. A tool named after a
 * global would be shadowed by it at run time (`parseInt` would call the real one) or clash with its
 * declaration when type-checked.
 */
const reservedNames = new Set([
  ...'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await async arguments'.split(
    ' ',
  ),
  ...'globalThis undefined NaN Infinity eval isFinite isNaN parseFloat parseInt decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape Object Function Array Number Boolean String Symbol BigInt Math JSON Date RegExp Promise Proxy Reflect Map Set WeakMap WeakSet WeakRef FinalizationRegistry Error AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError InternalError ArrayBuffer SharedArrayBuffer DataView Atomics Int8Array Uint8Array Uint8ClampedArray Int16Array Uint16Array Int32Array Uint32Array Float16Array Float32Array Float64Array BigInt64Array BigUint64Array Intl Iterator AsyncIterator WebAssembly console tools describe search print gc queueMicrotask setTimeout clearTimeout setInterval clearInterval structuredClone'.split(
    ' ',
  ),
]);

/** Type names the generated declarations must not redefine: globals and TypeScript's own types. */
export const reservedTypeNames: ReadonlySet<string> = new Set([
  ...reservedNames,
  ...'Record Partial Required Readonly Pick Omit Exclude Extract NonNullable ReturnType Parameters ConstructorParameters InstanceType Awaited ThisType Uppercase Lowercase Capitalize Uncapitalize NoInfer PropertyKey PropertyDescriptor PromiseLike ArrayLike ReadonlyArray ReadonlyMap ReadonlySet Iterable IterableIterator AsyncIterable AsyncIterableIterator Generator AsyncGenerator TemplateStringsArray Object Function unknown never any object string number boolean bigint symbol void null undefined'.split(
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
