import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { moduleGraphImports, nodeBuiltinImports } from '@toolwire/testing/module-graph';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));

describe('@toolwire/config entries', () => {
  it('keeps node: modules out of the root entry (browsers and edge runtimes can validate)', () => {
    const root = [...moduleGraphImports(join(src, 'index.ts')).values()].flatMap((s) => [...s]);
    expect(root).toContain('jsonc-parser');
    expect(nodeBuiltinImports(join(src, 'index.ts'))).toEqual([]);
  });

  it('has loadConfig, which reads files, behind ./node', () => {
    expect(nodeBuiltinImports(join(src, 'node.ts')).join('\n')).toContain('node:fs');
  });
});
