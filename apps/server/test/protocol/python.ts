import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'python', 'observe.py');

/**
 * A virtual environment with the official Python MCP client (`pip install mcp`), made once and
 * kept outside the repository (`~/.cache/toolwire/python-mcp`). The first Python 3.12 or 3.11 of
 * the machine makes it (the package index here carries wheels for one of them).
 */
export function pythonWithMcp(): string {
  const venv = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'toolwire',
    'python-mcp',
  );
  const python = join(venv, 'bin', 'python');
  if (
    existsSync(python) &&
    spawnSync(python, ['-c', 'import mcp'], { stdio: 'ignore' }).status === 0
  )
    return python;
  mkdirSync(dirname(venv), { recursive: true });
  const failures: string[] = [];
  for (const candidate of ['python3.12', 'python3.11', 'python3']) {
    const made = spawnSync(candidate, ['-m', 'venv', '--clear', venv], { encoding: 'utf8' });
    if (made.status !== 0) {
      failures.push(`${candidate}: ${made.stderr?.trim() || made.error?.message}`);
      continue;
    }
    // No retries: an index that is not reachable is passed over at once for the ones that are.
    const pip = spawnSync(
      join(venv, 'bin', 'pip'),
      ['install', '--quiet', '--retries', '0', 'mcp'],
      {
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    if (pip.status === 0) return python;
    failures.push(`${candidate}: pip install mcp: ${pip.stderr?.trim().split('\n').pop()}`);
  }
  throw new Error(`no Python with the mcp package could be set up:\n${failures.join('\n')}`);
}

export interface PythonObservation {
  protocolVersion: string;
  tools: string[];
  calls: Array<{ name: string; text?: string; error?: boolean; thrown?: string }>;
  seen: string[];
}

/** Runs the Python client against `url` (tools named `prefix` + name) and returns what it saw. */
export function observeWithPython(
  python: string,
  url: string,
  mode: 'legacy' | 'auto',
  prefix: string,
  calls: Array<{ name: string; arguments?: Record<string, unknown> }>,
): Promise<PythonObservation> {
  return new Promise((resolve, reject) => {
    execFile(
      python,
      [SCRIPT, url, mode, prefix, ...calls.map((call) => JSON.stringify(call))],
      { timeout: 120_000, maxBuffer: 8 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const line = stdout.trim().split('\n').pop();
        if (!line) return reject(new Error(`python client: ${error?.message ?? ''}\n${stderr}`));
        resolve(JSON.parse(line) as PythonObservation);
      },
    );
  });
}
