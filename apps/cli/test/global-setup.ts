// Builds what the tests drive: the workspace packages the CLI depends on (only when their `dist`
// is missing, e.g. in a fresh checkout) and the `toolwire` binary itself, with the package's own
// tsup config, into a private folder so a concurrent `build` of `dist` cannot race the tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { BIN_DIR, CLI_ROOT } from './helpers.js';

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  exports?: Record<string, unknown>;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Workspace packages reachable from the CLI's runtime dependencies whose build output is missing. */
function unbuiltWorkspaceDependencies(): string[] {
  const missing = new Set<string>();
  const seen = new Set<string>();
  const visit = (dir: string): void => {
    const manifest = readManifest(dir);
    const require = createRequire(join(dir, 'package.json'));
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (!range.startsWith('workspace:') || seen.has(name)) continue;
      seen.add(name);
      const depDir = dirname(require.resolve(`${name}/package.json`));
      if (!existsSync(join(depDir, 'dist'))) missing.add(name);
      visit(depDir);
    }
  };
  visit(CLI_ROOT);
  return [...missing];
}

function pnpmCommand(): { file: string; prefix: string[] } {
  const npmExecPath = process.env.npm_execpath;
  if (npmExecPath && /pnpm/.test(npmExecPath)) {
    return /\.c?js$/.test(npmExecPath)
      ? { file: process.execPath, prefix: [npmExecPath] }
      : { file: npmExecPath, prefix: [] };
  }
  return { file: 'pnpm', prefix: [] };
}

export default function setup(): void {
  const missing = unbuiltWorkspaceDependencies();
  if (missing.length > 0) {
    const pnpm = pnpmCommand();
    execFileSync(pnpm.file, [...pnpm.prefix, '--filter', '@toolwire/cli^...', 'run', 'build'], {
      cwd: CLI_ROOT,
      stdio: 'inherit',
    });
  }
  const tsupManifest = createRequire(join(CLI_ROOT, 'package.json')).resolve('tsup/package.json');
  const tsup = join(dirname(tsupManifest), 'dist', 'cli-default.js');
  execFileSync(process.execPath, [tsup, '--out-dir', BIN_DIR, '--silent'], {
    cwd: CLI_ROOT,
    stdio: 'inherit',
  });
}
