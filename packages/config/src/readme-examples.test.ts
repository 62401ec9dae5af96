import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, parseConfigText, validateConfig } from './validate-config.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function readmes(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.'))
      continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...readmes(path));
    else if (entry.name === 'README.md') found.push(path);
  }
  return found;
}

interface Block {
  where: string;
  text: string;
}

/** Every ```json / ```jsonc block of every README that is a toolwire configuration (or an excerpt). */
function configBlocks(): Block[] {
  const keys = Object.keys(configJsonSchema.properties ?? {}).filter((key) => key !== '$schema');
  const blocks: Block[] = [];
  for (const file of readmes(repoRoot)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^\s*```jsonc?\s*$/.test(lines[i]!)) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) end++;
      const text = lines.slice(start, end).join('\n');
      i = end;
      let value: unknown;
      try {
        value = parseConfigText(text);
      } catch {
        // Not one JSON value (e.g. several example arguments); a config block would name the file.
        if (text.includes('toolwire.config')) value = text;
        else continue;
      }
      const isConfig =
        typeof value === 'string' ||
        (typeof value === 'object' &&
          value !== null &&
          Object.keys(value).some((key) => keys.includes(key)));
      if (isConfig) blocks.push({ where: `${relative(repoRoot, file)}:${start}`, text });
    }
  }
  return blocks;
}

describe('README configuration examples', () => {
  const blocks = configBlocks();

  it('finds the configuration examples of the READMEs', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(4);
  });

  it.each(blocks.map((block) => [block.where, block.text] as const))(
    '%s validates against the configuration schema',
    (where, text) => {
      expect(() =>
        validateConfig(parseConfigText(text, `in ${where}`), `in ${where}`),
      ).not.toThrow();
    },
  );
});
