#!/usr/bin/env node
// Bootstrap for a bare machine: only Node >= 20 and npm are assumed.
//
// 1. Node: when the running Node is older than 22, a Node 24 runtime is installed from the npm
//    registry (the `node-<platform>-<arch>` package that `node@24` itself installs) into a cache
//    outside the repo, and everything after this step runs on it.
// 2. pnpm: the version pinned by `packageManager` is installed into the same cache (no global
//    install, no corepack) and put on PATH through a small shim directory.
// 3. Dependencies: `pnpm install --frozen-lockfile`.
// 4. The command: `test` runs every check, `start` builds and runs the gateway, `setup` stops here.
//
// Each phase prints one line; the output of install and build is kept and shown only when they fail.
// Signals sent to this process (SIGTERM from a process manager, `kill %1`, SIGHUP to reload) are
// passed on to the step running, so the gateway never outlives `npm start`.
//
// Written for Node 20 on purpose: no dependencies, no syntax newer than Node 20 accepts.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  chmodSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE_VERSION = '24.21.0';
const MIN_NODE_MAJOR = 22;

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const command = process.argv[2] ?? 'setup';
const extraArgs = process.argv.slice(3);

function log(message) {
  process.stderr.write(`[toolwire bootstrap] ${message}\n`);
}

function fail(message) {
  log(`error: ${message}`);
  process.exit(2);
}

function cacheRoot() {
  if (process.env.TOOLWIRE_CACHE_DIR) return resolve(process.env.TOOLWIRE_CACHE_DIR);
  if (process.platform === 'win32' && process.env.LOCALAPPDATA) {
    return join(process.env.LOCALAPPDATA, 'toolwire');
  }
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'toolwire');
}

function run(file, args, options = {}) {
  const result = spawnSync(file, args, { stdio: 'inherit', ...options });
  if (result.error) fail(`could not run ${file}: ${result.error.message}`);
  return result.status ?? 1;
}

function npmCommand() {
  // When started through `npm start`/`npm test`, npm tells us where its own CLI is.
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.js$/.test(execPath) && existsSync(execPath)) {
    return { file: process.execPath, prefix: [execPath] };
  }
  return { file: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

// Installs one registry package into `<cache>/<name>` atomically (temp dir + rename), so two
// bootstraps running at once, or one killed half-way, never leave a broken cache entry.
function installIntoCache(cache, dirName, spec, check) {
  const target = join(cache, dirName);
  if (existsSync(target) && check(target)) return target;
  mkdirSync(cache, { recursive: true });
  const staging = join(cache, `.staging-${dirName}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
  log(`installing ${spec} from the npm registry into ${target}`);
  const npm = npmCommand();
  const status = run(
    npm.file,
    [
      ...npm.prefix,
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      spec,
    ],
    { cwd: staging, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    fail(`npm could not install ${spec} (exit ${status}); is the npm registry reachable?`);
  }
  if (!check(staging)) {
    rmSync(staging, { recursive: true, force: true });
    fail(`${spec} installed but did not contain what was expected`);
  }
  rmSync(target, { recursive: true, force: true });
  try {
    renameSync(staging, target);
  } catch (error) {
    // Another bootstrap won the race; use its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!(existsSync(target) && check(target))) throw error;
  }
  return target;
}

function nodePackageName() {
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  const arch = { x64: 'x64', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' }[process.arch];
  if (!platform || !arch)
    fail(`no Node ${NODE_VERSION} package for ${process.platform}/${process.arch}`);
  return `node-${platform}-${arch}`;
}

function nodeBinaryIn(packageDir) {
  return process.platform === 'win32'
    ? join(packageDir, 'bin', 'node.exe')
    : join(packageDir, 'bin', 'node');
}

function ensureNode(cache) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE_MAJOR) return { node: process.execPath, headers: undefined };
  log(
    `Node ${process.versions.node} is older than ${MIN_NODE_MAJOR}; using Node ${NODE_VERSION} from the npm registry`,
  );
  const name = nodePackageName();
  const packageDir = (root) => join(root, 'node_modules', name);
  const works = (root) => {
    const binary = nodeBinaryIn(packageDir(root));
    if (!existsSync(binary)) return false;
    if (process.platform !== 'win32') chmodSync(binary, 0o755);
    const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
    return probe.status === 0 && probe.stdout.trim() === `v${NODE_VERSION}`;
  };
  const root = installIntoCache(cache, `node-v${NODE_VERSION}`, `${name}@${NODE_VERSION}`, works);
  return { node: nodeBinaryIn(packageDir(root)), headers: packageDir(root) };
}

function ensurePnpm(cache, node) {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const match = /^pnpm@(\d+\.\d+\.\d+)/.exec(manifest.packageManager ?? '');
  if (!match) fail('package.json must pin pnpm with "packageManager": "pnpm@x.y.z"');
  const version = match[1];
  const cli = (root) => join(root, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');
  const works = (root) => {
    if (!existsSync(cli(root))) return false;
    const probe = spawnSync(node, [cli(root), '--version'], { encoding: 'utf8' });
    return probe.status === 0 && probe.stdout.trim() === version;
  };
  const root = installIntoCache(cache, `pnpm-${version}`, `pnpm@${version}`, works);
  return cli(root);
}

// A directory with `node` and `pnpm` shims, first on PATH, so that pnpm, turbo and every script
// they start use the same runtime.
function writeShims(cache, node, pnpmCli) {
  const binDir = join(cache, 'bin');
  mkdirSync(binDir, { recursive: true });
  if (process.platform === 'win32') {
    writeFileSync(join(binDir, 'pnpm.cmd'), `@"${node}" "${pnpmCli}" %*\r\n`);
    writeFileSync(join(binDir, 'node.cmd'), `@"${node}" %*\r\n`);
  } else {
    const shim = (file, body) => {
      const path = join(binDir, file);
      const tmp = `${path}.${process.pid}`;
      writeFileSync(tmp, body);
      chmodSync(tmp, 0o755);
      renameSync(tmp, path);
    };
    shim('pnpm', `#!/bin/sh\nexec "${node}" "${pnpmCli}" "$@"\n`);
    shim('node', `#!/bin/sh\nexec "${node}" "$@"\n`);
  }
  return binDir;
}

// The child running now (install, build, the gateway), to pass signals on to. Children run in
// their own process group: a terminal's Ctrl-C reaches them only through here, exactly once.
let current;
let lastInterrupt = 0;
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(signal, () => {
    if (!current) process.exit(128 + (signal === 'SIGHUP' ? 1 : signal === 'SIGINT' ? 2 : 15));
    if (signal === 'SIGINT') {
      // Ctrl-C in a terminal reaches npm and this process at once, and npm passes its copy on too:
      // one keypress, one SIGINT for the gateway (a second one within the window means "now").
      const now = Date.now();
      if (now - lastInterrupt < 500) return;
      lastInterrupt = now;
    }
    try {
      process.kill(current.pid, signal);
    } catch {
      // Already gone.
    }
  });
}

// `npm start` runs this script through `sh -c`; a SIGTERM to npm is passed to that shell, which
// dies without passing it on. Losing the parent is the same request: stop the step gracefully.
const parentAtStart = process.ppid;
let orphaned = false;
setInterval(() => {
  if (orphaned || process.ppid === parentAtStart || !current) return;
  orphaned = true;
  log('the process that started this one is gone; stopping');
  process.emit('SIGTERM', 'SIGTERM');
}, 250).unref();

/**
 * Runs one child to its end. `quiet`: its output is kept and shown only if it fails, and the
 * phase is one line, "<label> ... done in 1.2 s".
 */
function step(file, args, { cwd, env, quiet, label }) {
  return new Promise((resolvePromise) => {
    const started = Date.now();
    if (quiet) process.stderr.write(`[toolwire bootstrap] ${label} ... `);
    const child = spawn(file, args, {
      cwd,
      env,
      detached: process.platform !== 'win32',
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    current = child;
    const output = [];
    if (quiet) {
      child.stdout.on('data', (chunk) => output.push(chunk));
      child.stderr.on('data', (chunk) => output.push(chunk));
    }
    child.on('error', (error) => {
      if (quiet) process.stderr.write('\n');
      fail(`could not run ${file}: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      current = undefined;
      const status = code ?? (signal ? 128 + (signal === 'SIGHUP' ? 1 : 2) : 1);
      if (quiet) {
        if (status === 0) {
          process.stderr.write(`done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
        } else {
          process.stderr.write('failed\n');
          process.stderr.write(Buffer.concat(output));
        }
      }
      resolvePromise(status);
    });
  });
}

async function main() {
  if (!['setup', 'test', 'start', 'bench'].includes(command)) {
    fail(`unknown command "${command}" (expected setup, test, start or bench)`);
  }
  const cache = cacheRoot();
  const { node, headers } = ensureNode(cache);
  const pnpmCli = ensurePnpm(cache, node);
  const binDir = writeShims(cache, node, pnpmCli);
  const sep = process.platform === 'win32' ? ';' : ':';
  const env = {
    ...process.env,
    PATH: `${binDir}${sep}${dirname(node)}${sep}${process.env.PATH ?? ''}`,
    TURBO_TELEMETRY_DISABLED: '1',
    // The pinned pnpm is the one to use; its "update available" banner only confuses newcomers.
    npm_config_update_notifier: 'false',
    DO_NOT_TRACK: '1',
    // Let tests that want a scratch area find one outside the repo.
    TOOLWIRE_TMP: process.env.TOOLWIRE_TMP ?? tmpdir(),
  };
  // Native addons must be built against the headers of the Node that will load them, not the
  // machine's (npm here is configured with the system Node's `nodedir`).
  if (headers) env.npm_config_nodedir = headers;
  // npm sets these for its own child; they would make pnpm think it is run by npm.
  delete env.npm_config_user_agent;
  delete env.npm_execpath;

  const pnpm = (args, options = {}) =>
    step(node, [pnpmCli, ...args], { cwd: repoRoot, env, ...options });
  log(
    `node ${spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim()}, pnpm from ${pnpmCli}`,
  );
  const installStatus = await pnpm(['install', '--frozen-lockfile'], {
    quiet: true,
    label: 'installing dependencies',
  });
  if (installStatus !== 0) fail(`pnpm install --frozen-lockfile failed (exit ${installStatus})`);

  if (command === 'setup') {
    log(`ready. To use this toolchain in a shell: export PATH="${binDir}${sep}$PATH"`);
    return;
  }
  if (command === 'start') {
    const buildStatus = await pnpm(['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
      quiet: true,
      label: 'building',
    });
    if (buildStatus !== 0) fail(`the build failed (exit ${buildStatus}); its errors are above`);
    const server = join(repoRoot, 'apps', 'server', 'dist', 'main.js');
    if (!existsSync(server)) fail(`the build finished but ${server} is missing`);
    process.exit(await step(node, [server, ...extraArgs], { cwd: repoRoot, env }));
  }
  const script = { test: 'test:all', bench: 'bench' }[command];
  process.exit(await pnpm(['run', script, ...extraArgs]));
}

await main();
