import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isRecord } from './json-rpc.js';
import { compileGlobs, type GlobMatcher as Matcher } from '@toolwire/schema';

/**
 * A path rule (`policy.paths` in the config): the arguments of the tools whose names match `tools`
 * (globs over the namespaced name, so an alias is covered too) that hold file-system paths must
 * resolve inside one of `roots`. `arguments` are dotted keys, `*` for every array item; without
 * it, the path arguments of `@modelcontextprotocol/server-filesystem`'s tools are checked.
 * A relative path is resolved against `relativeTo` the way server-filesystem resolves it against
 * its directories (the first one that keeps it inside them, else the first); without
 * `relativeTo` a relative path is refused.
 */
export interface PathArgumentRule {
  tools: string[];
  arguments?: string[];
  /** The old spelling of `arguments`. */
  paths?: string[];
  roots: string[];
  relativeTo?: string[];
}

/** Every path argument of `@modelcontextprotocol/server-filesystem`'s tools. */
export const FILESYSTEM_PATH_ARGUMENTS: readonly string[] = [
  'path',
  'paths.*',
  'source',
  'destination',
];

/**
 * The path arguments of each tool of `@modelcontextprotocol/server-filesystem` (what a rule with
 * an explicit `arguments` list must name to check that tool fully).
 */
const FILESYSTEM_TOOL_ARGUMENTS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['path'],
  read_text_file: ['path'],
  read_media_file: ['path'],
  read_multiple_files: ['paths.*'],
  write_file: ['path'],
  edit_file: ['path'],
  create_directory: ['path'],
  list_directory: ['path'],
  list_directory_with_sizes: ['path'],
  directory_tree: ['path'],
  move_file: ['source', 'destination'],
  search_files: ['path'],
  get_file_info: ['path'],
};

/**
 * Warnings for path rules that leave path arguments unchecked without a word: a rule with an
 * explicit `arguments` list whose `tools` match a tool of a server-filesystem upstream but that
 * does not name one of that tool's path arguments (`move_file`'s `source` and `destination`).
 * One line per rule, naming the rule, the arguments and the tools.
 */
export function pathRuleWarnings(
  rules: readonly PathArgumentRule[],
  servers: Record<string, { command?: string; args?: unknown; cwd?: unknown }> = {},
  separator = '__',
): string[] {
  const filesystems = [...filesystemDirectories(servers).keys()];
  const warnings: string[] = [];
  rules.forEach((rule, index) => {
    const named = rule.arguments ?? rule.paths;
    if (named === undefined) return;
    const match = compileGlobs(rule.tools);
    if (!match) return;
    const missing = new Map<string, string[]>();
    for (const server of filesystems) {
      for (const [tool, wanted] of Object.entries(FILESYSTEM_TOOL_ARGUMENTS)) {
        const name = `${server}${separator}${tool}`;
        if (!match(name)) continue;
        for (const argument of wanted) {
          if (named.includes(argument)) continue;
          missing.set(argument, [...(missing.get(argument) ?? []), name]);
        }
      }
    }
    if (missing.size === 0) return;
    const list = [...missing].map(([argument, tools]) => `"${argument}" (${tools.join(', ')})`);
    warnings.push(
      `policy.paths[${index}].arguments leaves out ${list.join(', ')}: those path arguments are not checked. Name them, or leave "arguments" out to check every path argument of server-filesystem.`,
    );
  });
  return warnings;
}

export interface ArgumentViolation {
  path: string;
  message: string;
}

/**
 * What `ArgumentRules.confine` decided: a violation, or the arguments to hand the upstream, each
 * checked path replaced by the real path it resolved to (so a symlink swapped between our check
 * and the upstream's open changes nothing), with what to check again once the call is done.
 */
export type ConfinedArguments =
  | { violation: ArgumentViolation; args?: undefined; handed?: undefined }
  | { violation?: undefined; args: unknown; handed: HandedPath[] };

/** A real path handed to the upstream in place of an argument, and the roots it had to be in. */
export interface HandedPath {
  /** The argument's place (`source`, `paths[1]`). */
  at: string;
  real: string;
  realRoots: readonly string[];
}

interface CompiledRule {
  match: Matcher;
  arguments: string[][];
  roots: string[];
  relativeTo: string[] | undefined;
}

function valuesAt(
  value: unknown,
  segments: readonly string[],
  at: string,
  out: Array<[string, unknown]>,
): void {
  if (segments.length === 0) {
    out.push([at, value]);
    return;
  }
  const [head, ...rest] = segments;
  if (head === '*') {
    if (Array.isArray(value)) value.forEach((item, i) => valuesAt(item, rest, `${at}[${i}]`, out));
    return;
  }
  if (isRecord(value) && head! in value)
    valuesAt(value[head!], rest, at ? `${at}.${head}` : head!, out);
}

/**
 * `value` with the leaves at `segments` (`*` for every array item) that equal `from` replaced by
 * `to`, copied along the way (the caller's object is left as it is).
 */
function replaceAt(value: unknown, segments: readonly string[], from: string, to: string): unknown {
  if (segments.length === 0) return value === from ? to : value;
  const [head, ...rest] = segments;
  if (head === '*') {
    return Array.isArray(value) ? value.map((item) => replaceAt(item, rest, from, to)) : value;
  }
  if (!isRecord(value) || !(head! in value)) return value;
  const next = replaceAt(value[head!], rest, from, to);
  return next === value[head!] ? value : { ...value, [head!]: next };
}

/** `path` with symlinks resolved: the realpath of its longest existing prefix, plus the rest. */
async function resolveExisting(absolute: string): Promise<string> {
  let prefix = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(prefix), ...rest);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      const parent = path.dirname(prefix);
      if (parent === prefix) return absolute;
      rest.unshift(path.basename(prefix));
      prefix = parent;
    }
  }
}

function inside(candidate: string, roots: readonly string[]): boolean {
  return roots.some((root) => {
    const relative = path.relative(root, candidate);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
}

/** Why the spelling alone is refused, before any resolution. */
function refusedForm(value: string): string | undefined {
  if (value.includes('\0')) return 'path contains a NUL byte';
  if (value.startsWith('~')) return `path "${value}" starts with "~" (home expansion is refused)`;
  if (/%[0-9a-f]{2}/i.test(value)) return `path "${value}" is URL-encoded`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return `path "${value}" is a URL`;
  if (value.split(/[\\/]/).includes('..')) return `path "${value}" contains ".."`;
  if (value.trim() === '') return 'path is empty';
  return undefined;
}

export class ArgumentRules {
  private readonly rules: CompiledRule[];
  private realRoots: Promise<string[][]> | undefined;

  /**
   * `upstreamDirectories`: per upstream, the directories it resolves relative paths against (see
   * `filesystemDirectories`), used by rules that set no `relativeTo`.
   */
  constructor(
    rules: readonly PathArgumentRule[] = [],
    private readonly upstreamDirectories: ReadonlyMap<string, string[]> = new Map(),
  ) {
    this.rules = rules.map((rule, i) => {
      if (rule.roots.length === 0)
        throw new Error(`policy.paths[${i}].roots: expected at least one root`);
      return {
        match: compileGlobs(rule.tools) ?? (() => false),
        arguments: (rule.arguments ?? rule.paths ?? FILESYSTEM_PATH_ARGUMENTS).map((p) =>
          p.split('.'),
        ),
        roots: rule.roots.map((root) => path.resolve(root)),
        relativeTo: rule.relativeTo?.map((dir) => path.resolve(dir)),
      };
    });
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  /**
   * The first violation among the arguments of a tool known by any of `names` (exposed and
   * namespaced), served by `server`, if any.
   */
  async check(
    names: string | readonly string[],
    args: unknown,
    server?: string,
  ): Promise<ArgumentViolation | undefined> {
    return (await this.confine(names, args, server)).violation;
  }

  /**
   * Checks the path arguments as `check` does and, when they pass, gives the arguments to hand the
   * upstream: each checked path replaced by its real path (symlinks resolved, relative paths made
   * absolute the way the upstream would), so that what the upstream opens is what was checked
   * even if a symlink on the way is swapped meanwhile. `recheck` the handed paths after the call.
   */
  async confine(
    names: string | readonly string[],
    args: unknown,
    server?: string,
  ): Promise<ConfinedArguments> {
    const list = typeof names === 'string' ? [names] : names;
    // Roots are compared by their real paths (a root that is itself a symlink still works).
    this.realRoots ??= Promise.all(
      this.rules.map((rule) => Promise.all(rule.roots.map((root) => resolveExisting(root)))),
    );
    const realRoots = await this.realRoots;
    let confined = args;
    const handed: HandedPath[] = [];
    for (const [index, rule] of this.rules.entries()) {
      if (!list.some((name) => rule.match(name))) continue;
      for (const segments of rule.arguments) {
        const found: Array<[string, unknown]> = [];
        valuesAt(args, segments, '', found);
        for (const [at, value] of found) {
          if (typeof value !== 'string') continue;
          const relativeTo =
            rule.relativeTo ??
            (server !== undefined ? this.upstreamDirectories.get(server) : undefined);
          const checked = await this.checkPath(value, rule, realRoots[index]!, relativeTo);
          if (typeof checked === 'string') return { violation: { path: at, message: checked } };
          handed.push({ at, real: checked.real, realRoots: realRoots[index]! });
          confined = replaceAt(confined, segments, value, checked.real);
        }
      }
    }
    return { args: confined, handed };
  }

  /**
   * After the call: each handed real path must still be itself (no symlink appeared on it while
   * the call ran) and inside its roots; else the call may have reached outside them, and its
   * result is not to be given out.
   */
  async recheck(handed: readonly HandedPath[]): Promise<ArgumentViolation | undefined> {
    for (const { at, real, realRoots } of handed) {
      const now = await resolveExisting(real);
      if (now !== real || !inside(now, realRoots)) {
        return {
          path: at,
          message: `path ${real} changed while the call ran (it now resolves to ${now}); the result is withheld`,
        };
      }
    }
    return undefined;
  }

  /** Why the path is refused, or its real path. */
  private async checkPath(
    value: string,
    rule: CompiledRule,
    realRoots: readonly string[],
    relativeTo: readonly string[] | undefined,
  ): Promise<string | { real: string }> {
    const form = refusedForm(value);
    if (form) return form;
    let absolute: string;
    if (path.isAbsolute(value)) absolute = path.resolve(value);
    else if (relativeTo && relativeTo.length > 0) {
      const bases = relativeTo;
      absolute =
        bases.map((base) => path.resolve(base, value)).find((c) => inside(c, bases)) ??
        path.resolve(bases[0]!, value);
    } else {
      return `path "${value}" is relative (give an absolute path inside ${rule.roots.join(', ')})`;
    }
    const real = await resolveExisting(absolute);
    if (inside(absolute, rule.roots) && inside(real, realRoots)) return { real };
    return real !== absolute && inside(absolute, rule.roots)
      ? `path "${value}" resolves through a symlink to ${real}, outside the allowed roots (${rule.roots.join(', ')})`
      : `path "${value}" resolves outside the allowed roots (${rule.roots.join(', ')})`;
  }
}

/**
 * The directory arguments of every `@modelcontextprotocol/server-filesystem` upstream in
 * `mcpServers`, resolved as that server resolves them (against its `cwd`, else ours): the
 * directories it resolves relative paths against, in its order.
 */
export function filesystemDirectories(
  servers: Record<string, { command?: string; args?: unknown; cwd?: unknown }> = {},
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, server] of Object.entries(servers)) {
    const args = Array.isArray(server.args) ? server.args.map(String) : [];
    const words = [server.command ?? '', ...args];
    const at = words.findIndex((word) => word.includes('server-filesystem'));
    if (at < 0) continue;
    const cwd = typeof server.cwd === 'string' ? server.cwd : process.cwd();
    const dirs = words
      .slice(at + 1)
      .filter((word) => !word.startsWith('-'))
      .map((dir) => path.resolve(cwd, dir));
    if (dirs.length > 0) out.set(name, dirs);
  }
  return out;
}
