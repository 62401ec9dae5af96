import { existsSync, readFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const SPECIFIERS = [
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g,
  /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  /^\s*import\s+['"]([^'"]+)['"]/gm,
];

/** The file a relative specifier names: `./x.js` is `./x.ts` in source, `./x.js` once built. */
function resolveRelative(from: string, specifier: string): string {
  const target = join(dirname(from), specifier);
  if (existsSync(target)) return target;
  const source = target.replace(/\.js$/, '.ts');
  if (existsSync(source)) return source;
  throw new Error(`${from} imports ${specifier}, which does not exist`);
}

/** A workspace package's source entry for `specifier` (its `@toolwire/source` export condition). */
function workspaceSource(from: string, specifier: string): string | undefined {
  const match = /^(@toolwire\/[^/]+)(\/.*)?$/.exec(specifier);
  if (!match) return undefined;
  const manifestPath = createRequire(from).resolve(`${match[1]}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports?: Record<string, Record<string, string> | string>;
  };
  const entry = manifest.exports?.[`.${match[2] ?? ''}`];
  const source = typeof entry === 'object' ? entry['@toolwire/source'] : undefined;
  return source ? join(dirname(manifestPath), source) : undefined;
}

/**
 * Every module specifier an entry file reaches at load time: its relative imports are followed
 * file by file, and so are imports of Toolwire workspace packages (through their source entries),
 * so the answer covers what the entry drags in from `@toolwire/config`, `@toolwire/schema`, ….
 * What is left is third-party packages and built-ins (`node:fs`), keyed by the file importing them.
 */
export function moduleGraphImports(entry: string): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const visit = (file: string): void => {
    if (graph.has(file)) return;
    const imports = new Set<string>();
    graph.set(file, imports);
    const text = readFileSync(file, 'utf8');
    for (const pattern of SPECIFIERS)
      for (const [, specifier] of text.matchAll(pattern)) {
        if (specifier!.startsWith('.')) visit(resolveRelative(file, specifier!));
        else {
          const workspace = workspaceSource(file, specifier!);
          if (workspace) visit(workspace);
          else imports.add(specifier!);
        }
      }
  };
  visit(entry);
  for (const [file, imports] of graph) if (imports.size === 0) graph.delete(file);
  return graph;
}

/** The `node:` built-ins (and bare `fs`, `path`, …) an entry reaches, as `file: specifier` lines. */
export function nodeBuiltinImports(entry: string): string[] {
  const builtins = new Set(builtinModules);
  const found: string[] = [];
  for (const [file, imports] of moduleGraphImports(entry))
    for (const specifier of imports)
      if (specifier.startsWith('node:') || builtins.has(specifier.split('/')[0]!))
        found.push(`${file}: ${specifier}`);
  return found;
}
