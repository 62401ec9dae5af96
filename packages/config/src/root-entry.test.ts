import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Every module specifier reached from a file through this package's own relative imports. */
function importsFrom(file: string, seen = new Set<string>()): Set<string> {
  const specifiers = new Set<string>();
  if (seen.has(file)) return specifiers;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const [, specifier] of text.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'/g)) {
    if (specifier!.startsWith('.')) {
      const target = join(dirname(file), specifier!.replace(/\.js$/, '.ts'));
      for (const nested of importsFrom(target, seen)) specifiers.add(nested);
    } else specifiers.add(specifier!);
  }
  return specifiers;
}

const src = dirname(fileURLToPath(import.meta.url));

describe('@toolwire/config entries', () => {
  it('keeps node: modules out of the root entry (browsers and edge runtimes can validate)', () => {
    const root = [...importsFrom(join(src, 'index.ts'))];
    expect(root).toContain('jsonc-parser');
    expect(root.filter((specifier) => specifier.startsWith('node:'))).toEqual([]);
  });

  it('has loadConfig, which reads files, behind ./node', () => {
    expect([...importsFrom(join(src, 'node.ts'))]).toContain('node:fs');
  });
});
