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

export interface ArgumentViolation {
  path: string;
  message: string;
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
    const list = typeof names === 'string' ? [names] : names;
    // Roots are compared by their real paths (a root that is itself a symlink still works).
    this.realRoots ??= Promise.all(
      this.rules.map((rule) => Promise.all(rule.roots.map((root) => resolveExisting(root)))),
    );
    const realRoots = await this.realRoots;
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
          const violation = await this.checkPath(value, rule, realRoots[index]!, relativeTo);
          if (violation) return { path: at, message: violation };
        }
      }
    }
    return undefined;
  }

  private async checkPath(
    value: string,
    rule: CompiledRule,
    realRoots: readonly string[],
    relativeTo: readonly string[] | undefined,
  ): Promise<string | undefined> {
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
    if (inside(absolute, rule.roots) && inside(real, realRoots)) return undefined;
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
