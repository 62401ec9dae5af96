import picomatch from 'picomatch';

/** Whether a tool name matches a compiled set of glob patterns. */
export type GlobMatcher = (name: string) => boolean;

/**
 * The one glob matcher for tool names (policy, auth, cache, rate limits, `mcpServers.*.include` /
 * `exclude`): picomatch syntax — `*`, `?`, `[ab]`, `{read,write}_*`, `!(x)`. Names are not paths,
 * so a leading dot is matched like any other character. `undefined` for no patterns.
 */
export function compileGlobs(patterns: readonly string[] | undefined): GlobMatcher | undefined {
  if (!patterns || patterns.length === 0) return undefined;
  return picomatch([...patterns], { dot: true, nocase: false });
}

/** True when `name` matches one of `patterns` (false for none); compiles each time. */
export function matchesGlob(patterns: readonly string[], name: string): boolean {
  return compileGlobs(patterns)?.(name) ?? false;
}
