import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export type NamingStrategy = 'prefix' | 'flat' | 'custom';

export interface NamingOptions {
  /** `prefix` (default): `<server><separator><tool>`; `flat`: the tool's own name; `custom`: aliases, else prefix. */
  strategy?: NamingStrategy;
  /** Default `__`. */
  separator?: string;
  /** Default 64 (what OpenAI, Anthropic and others accept). */
  maxLength?: number;
  /** `<exposed name>` or `<server>/<tool>` -> the name to expose instead. */
  aliases?: Record<string, string>;
}

/** One tool asking for a name. */
export interface NamingEntry {
  /** Unique key of the tool (e.g. `server\u0000tool`); names come back keyed by it. */
  key: string;
  /** `native` or the server name. */
  source: string;
  originalName: string;
  /** The prefix for this source (the server name unless configured); unused for native tools. */
  prefix: string;
  /** Higher wins a collision; native tools always win. */
  priority: number;
  /** Declaration order of the source: on equal priority, the earlier source wins (so adding a server never renames existing tools). */
  order: number;
}

export interface NamingResult {
  names: Map<string, string>;
  /** One line per collision or rewrite, saying who kept the name and what the other got. */
  warnings: string[];
}

export const DEFAULT_SEPARATOR = '__';
export const DEFAULT_MAX_LENGTH = 64;
const SAFE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Gives every tool an exposed name that matches `^[a-zA-Z0-9_-]{1,maxLength}$` and is unique.
 * Deterministic: the same entries always get the same names. A collision never fails: the entry
 * with the higher priority (native first, then `priority`, then declaration order) keeps the name,
 * the other is renamed (its prefixed name under `flat`, else a hash suffix) and a warning says so.
 */
export function assignToolNames(
  entries: readonly NamingEntry[],
  options: NamingOptions = {},
): NamingResult {
  const strategy = options.strategy ?? 'prefix';
  const separator = options.separator ?? DEFAULT_SEPARATOR;
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  const aliases = options.aliases ?? {};
  const names = new Map<string, string>();
  const warnings: string[] = [];
  const taken = new Map<string, NamingEntry>();

  const sorted = [...entries].sort(
    (a, b) =>
      Number(b.source === 'native') - Number(a.source === 'native') ||
      b.priority - a.priority ||
      a.order - b.order ||
      compare(a.source, b.source) ||
      compare(a.originalName, b.originalName),
  );

  for (const entry of sorted) {
    const prefixed =
      entry.source === 'native'
        ? entry.originalName
        : joinName(entry.prefix, separator, entry.originalName);
    const alias = aliases[`${entry.source}/${entry.originalName}`] ?? aliases[prefixed];
    let preferred: string;
    if (alias !== undefined) preferred = alias;
    else if (entry.source === 'native' || strategy === 'flat') preferred = entry.originalName;
    else preferred = prefixed;
    const wanted = fitName(preferred, maxLength, `${entry.source}/${entry.originalName}`);
    if (wanted !== preferred)
      warnings.push(
        `tool "${entry.originalName}" of ${describe(entry)} is exposed as "${wanted}" ("${preferred}" is not a valid name of at most ${maxLength} characters)`,
      );

    let name = wanted;
    const holder = taken.get(name);
    if (holder) {
      const candidates: string[] = [];
      if (alias === undefined && strategy === 'flat' && entry.source !== 'native')
        candidates.push(fitName(prefixed, maxLength, `${entry.source}/${entry.originalName}`));
      candidates.push(withHashSuffix(wanted, maxLength, `${entry.source}/${entry.originalName}`));
      name = candidates.find((candidate) => !taken.has(candidate)) ?? candidates.at(-1)!;
      for (let counter = 2; taken.has(name); counter++)
        name = withHashSuffix(
          wanted,
          maxLength,
          `${entry.source}/${entry.originalName}#${counter}`,
        );
      warnings.push(
        `tool name collision on "${wanted}": ${describe(holder)} keeps it (higher priority); tool "${entry.originalName}" of ${describe(entry)} is exposed as "${name}"`,
      );
    }
    taken.set(name, entry);
    names.set(entry.key, name);
  }
  return { names, warnings };
}

function describe(entry: NamingEntry): string {
  return entry.source === 'native' ? 'the native tools' : `server "${entry.source}"`;
}

function joinName(prefix: string, separator: string, name: string): string {
  return prefix === '' ? name : `${prefix}${separator}${name}`;
}

/** Makes a name valid: unsafe characters become `_`, and a name that is too long is shortened with a hash suffix. */
export function fitName(name: string, maxLength: number, seed: string): string {
  let safe = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (safe === '') safe = 'tool';
  if (safe.length <= maxLength && SAFE_NAME.test(safe)) return safe;
  return withHashSuffix(safe, maxLength, seed);
}

/** `name` cut to fit, followed by `_` and 8 hex characters of a hash of `seed`. */
export function withHashSuffix(name: string, maxLength: number, seed: string): string {
  const suffix = `_${bytesToHex(sha256(utf8ToBytes(seed))).slice(0, 8)}`;
  return `${name.slice(0, Math.max(1, maxLength - suffix.length)).replace(/[_-]+$/, '')}${suffix}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
