import path from 'node:path';
import { isRecord } from './json-rpc.js';
import { compileGlobs, type GlobMatcher as Matcher } from '@toolwire/schema';

/**
 * A rule over the arguments of the tools whose exposed names match `tools` (globs). `paths` names
 * the argument keys (dotted, `*` for every array item) that hold file-system paths; each must
 * resolve inside one of `roots`, so `..` and absolute paths cannot escape them.
 */
export interface PathArgumentRule {
  tools: string[];
  paths: string[];
  roots: string[];
}

export interface ArgumentViolation {
  path: string;
  message: string;
}

interface CompiledRule {
  match: Matcher;
  paths: string[][];
  roots: string[];
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

export class ArgumentRules {
  private readonly rules: CompiledRule[];

  constructor(rules: readonly PathArgumentRule[] = []) {
    this.rules = rules.map((rule, i) => {
      if (rule.roots.length === 0)
        throw new Error(`argumentRules[${i}].roots: expected at least one root`);
      return {
        match: compileGlobs(rule.tools) ?? (() => false),
        paths: rule.paths.map((p) => p.split('.')),
        roots: rule.roots.map((root) => path.resolve(root)),
      };
    });
  }

  get empty(): boolean {
    return this.rules.length === 0;
  }

  check(tool: string, args: unknown): ArgumentViolation | undefined {
    for (const rule of this.rules) {
      if (!rule.match(tool)) continue;
      for (const segments of rule.paths) {
        const found: Array<[string, unknown]> = [];
        valuesAt(args, segments, '', found);
        for (const [at, value] of found) {
          if (typeof value !== 'string') continue;
          const violation = checkPath(value, rule.roots);
          if (violation) return { path: at, message: violation };
        }
      }
    }
    return undefined;
  }
}

function checkPath(value: string, roots: readonly string[]): string | undefined {
  if (value.includes('\0')) return 'path contains a NUL byte';
  for (const root of roots) {
    const resolved = path.resolve(root, value);
    const relative = path.relative(root, resolved);
    if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative)))
      return undefined;
  }
  return `path "${value}" resolves outside the allowed roots (${roots.join(', ')})`;
}
