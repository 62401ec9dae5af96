// The TypeScript examples of the READMEs, as two tests use them: one runs them
// (readme-examples.test.ts), one type-checks them (readme-types.test.ts).
// A block that cannot run is marked in its README, on the line before it, with
// `<!-- not-runnable: reason -->`. A block marked `<!-- continues the example above -->` runs after
// the README's last unmarked example (it uses what that one defined). When a README shows a
// `toolwire.config.json` (a ```json block after a line "`toolwire.config.json`:"), its later
// examples run in a directory holding that file.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Where a README's examples run from when its own package lacks what they import: the root README
 * from @toolwire/agent (it depends on every package), @toolwire/testing's (it shows the OpenAI SDK)
 * from @toolwire/openai.
 */
const RUN_FROM: Record<string, string> = {
  '.': 'packages/agent',
  'packages/testing': 'packages/openai',
};

export interface ReadmeExample {
  where: string;
  /** The directory the example runs from (the README's package, so its dependencies resolve). */
  dir: string;
  code: string;
  notRunnable?: string;
  /** The `toolwire.config.json` the README showed before the example. */
  config?: string;
}

function readmes(): string[] {
  const files = [join(repoRoot, 'README.md')];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(repoRoot, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const file = join(repoRoot, group, entry.name, 'README.md');
      try {
        readFileSync(file);
        files.push(file);
      } catch {
        // a package without a README
      }
    }
  }
  return files;
}

/** Every ts block of every README (root, packages/*, apps/*) that imports something. */
export function readmeExamples(): ReadmeExample[] {
  const found: ReadmeExample[] = [];
  for (const file of readmes()) {
    let base = '';
    let config: string | undefined;
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (/^`toolwire\.config\.json`:\s*$/.test(lines[i]!)) {
        let start = i + 1;
        while (start < lines.length && lines[start]!.trim() === '') start++;
        if (/^```jsonc?\s*$/.test(lines[start]!)) {
          let end = start + 1;
          while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
          config = lines.slice(start + 1, end).join('\n');
          i = end;
        }
        continue;
      }
      if (!/^```(ts|typescript)\s*$/.test(lines[i]!)) continue;
      const fence = i + 1;
      let end = i + 1;
      while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
      let code = lines.slice(i + 1, end).join('\n');
      let before = i - 1;
      while (before >= 0 && lines[before]!.trim() === '') before--;
      const comment = lines[before]?.trim() ?? '';
      const marker = /^<!--\s*not-runnable:\s*(.+?)\s*-->$/.exec(comment);
      i = end;
      if (!/^\s*import\s/m.test(code)) continue;
      if (/^<!--\s*continues the example above\s*-->$/.test(comment)) code = `${base}\n${code}`;
      else if (!marker) base = code;
      const where = relative(repoRoot, file);
      found.push({
        where: `${where}:${fence}`,
        dir: join(repoRoot, RUN_FROM[dirname(where)] ?? dirname(where)),
        code,
        ...(marker ? { notRunnable: marker[1]! } : {}),
        ...(config !== undefined ? { config } : {}),
      });
    }
  }
  return found;
}
