// A Node older than the packages support, to start the binaries with: the machine's own when it is
// one (Node 20 on a fresh machine), else Node 20 from the npm registry into a cache folder.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const FALLBACK = '20.20.2';

function major(node: string): number | undefined {
  try {
    return Number(
      execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().slice(1).split('.')[0],
    );
  } catch {
    return undefined;
  }
}

export function olderNode(): string {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    const found = existsSync(candidate) ? major(candidate) : undefined;
    if (found !== undefined && found < 22) return candidate;
  }
  const platform = { linux: 'linux', darwin: 'darwin' }[process.platform as string];
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch as string];
  if (!platform || !arch)
    throw new Error(`no Node ${FALLBACK} package for ${process.platform}/${process.arch}`);
  const name = `node-${platform}-${arch}`;
  const dir = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'toolwire',
    `node-v${FALLBACK}`,
  );
  const binary = join(dir, 'node_modules', name, 'bin', 'node');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    execFileSync(
      'npm',
      [
        'install',
        '--no-save',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `${name}@${FALLBACK}`,
      ],
      {
        cwd: dir,
        stdio: 'ignore',
      },
    );
    chmodSync(binary, 0o755);
  }
  return binary;
}
