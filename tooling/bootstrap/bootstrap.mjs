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
// Each phase prints one line; the output of install and build is kept and shown only when they
// fail. A phase never leaves the screen silent for more than 10 s (a line says what is still
// running), the build prints one line per package as it finishes, and the set-up ends with a
// table of where the time went. `start` builds only what the gateway runs, and only its
// JavaScript (the type declarations are what most of a full build's time goes to, and only
// `npm test` needs them), unless turbo's cache already holds the full build.
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

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function npmCommand() {
  // When started through `npm start`/`npm test`, npm tells us where its own CLI is.
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.js$/.test(execPath) && existsSync(execPath)) {
    return { file: process.execPath, prefix: [execPath] };
  }
  return { file: process.platform === 'win32' ? 'npm.cmd' : 'npm', prefix: [] };
}

// Where the set-up's time went, printed as a table when it ends.
const phases = [];

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

// The longest the screen stays silent while a phase runs: a line says what is still going on.
// (TOOLWIRE_BOOTSTRAP_SILENCE_MS shortens it: the tests watch the heartbeat without waiting 8 s.)
const SILENCE_MS = Number(process.env.TOOLWIRE_BOOTSTRAP_SILENCE_MS) || 8_000;

/**
 * Runs one child to its end and resolves with its exit status.
 *
 * - `quiet`: its output is kept and shown only if it fails; the phase is one line,
 *   "<label> ... done in 1.2 s", unless something is printed meanwhile (a heartbeat after
 *   SILENCE_MS without a line, or `onLine`'s), in which case it ends with "<label>: done in 1.2 s".
 * - `onLine(line, say)`: each line of its output, as it comes; `say` prints a line of ours.
 * - `stillRunning()`: what the heartbeat line says (default: the child's last line of output).
 * - `watch(text)`: the child's stderr is passed through, and read (the gateway's "MCP at").
 */
function step(file, args, { cwd, env, quiet, label, onLine, stillRunning, watch }) {
  return new Promise((resolvePromise) => {
    const started = Date.now();
    let midLine = false;
    let lastSaid = Date.now();
    let lastLine = '';
    if (quiet) {
      process.stderr.write(`[toolwire bootstrap] ${label} ... `);
      midLine = true;
    }
    const say = (line) => {
      if (midLine) process.stderr.write('\n');
      midLine = false;
      log(line);
      lastSaid = Date.now();
    };
    const child = spawn(file, args, {
      cwd,
      env,
      detached: process.platform !== 'win32',
      stdio: quiet
        ? ['ignore', 'pipe', 'pipe']
        : watch
          ? ['inherit', 'inherit', 'pipe']
          : 'inherit',
    });
    current = child;
    const output = [];
    let pending = '';
    const read = (chunk) => {
      output.push(chunk);
      pending += chunk.toString('utf8');
      let at;
      while ((at = pending.search(/[\r\n]/)) >= 0) {
        const line = pending.slice(0, at).trim();
        pending = pending.slice(at + 1);
        if (line === '') continue;
        lastLine = line;
        onLine?.(line, say);
      }
    };
    if (quiet) {
      child.stdout.on('data', read);
      child.stderr.on('data', read);
    } else if (watch) {
      child.stderr.on('data', (chunk) => {
        process.stderr.write(chunk);
        watch(chunk.toString('utf8'));
      });
    }
    const heartbeat = quiet
      ? setInterval(
          () => {
            if (Date.now() - lastSaid < SILENCE_MS) return;
            const what = stillRunning?.() ?? lastLine.slice(0, 100);
            say(`  … ${seconds(Date.now() - started)}${what ? `: ${what}` : ''}`);
          },
          Math.min(1_000, SILENCE_MS),
        )
      : undefined;
    child.on('error', (error) => {
      if (midLine) process.stderr.write('\n');
      fail(`could not run ${file}: ${error.message}`);
    });
    child.on('close', (code, signal) => {
      current = undefined;
      clearInterval(heartbeat);
      const status = code ?? (signal ? 128 + (signal === 'SIGHUP' ? 1 : 2) : 1);
      if (quiet) {
        const took = seconds(Date.now() - started);
        const outcome = status === 0 ? `done in ${took}` : `failed after ${took}`;
        if (midLine) process.stderr.write(`${outcome}\n`);
        else log(`${label}: ${outcome}`);
        if (status !== 0) process.stderr.write(Buffer.concat(output));
      }
      resolvePromise(status);
    });
  });
}

/** Times a phase for the closing table. */
async function phase(name, run) {
  const started = Date.now();
  const result = await run();
  const entry = { name, ms: Date.now() - started, note: '' };
  phases.push(entry);
  return { result, entry };
}

function printPhases(title) {
  const total = phases.reduce((sum, p) => sum + p.ms, 0);
  const width = Math.max(...phases.map((p) => p.name.length));
  log(`${title} in ${seconds(total)}:`);
  for (const p of phases)
    log(`  ${p.name.padEnd(width)}  ${seconds(p.ms).padStart(7)}${p.note ? `  ${p.note}` : ''}`);
}

// Installs one registry package into `<cache>/<name>` atomically (temp dir + rename), so two
// bootstraps running at once, or one killed half-way, never leave a broken cache entry.
async function installIntoCache(cache, dirName, spec, check) {
  const target = join(cache, dirName);
  if (existsSync(target) && check(target)) return { root: target, installed: false };
  mkdirSync(cache, { recursive: true });
  const staging = join(cache, `.staging-${dirName}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
  const npm = npmCommand();
  const status = await step(
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
    {
      cwd: staging,
      env: process.env,
      quiet: true,
      label: `installing ${spec} from the npm registry into ${target}`,
      stillRunning: () => `npm is fetching ${spec}`,
    },
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
  return { root: target, installed: true };
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

async function ensureNode(cache) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MIN_NODE_MAJOR)
    return { node: process.execPath, headers: undefined, note: `this Node (${process.version})` };
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
  const { root, installed } = await installIntoCache(
    cache,
    `node-v${NODE_VERSION}`,
    `${name}@${NODE_VERSION}`,
    works,
  );
  return {
    node: nodeBinaryIn(packageDir(root)),
    headers: packageDir(root),
    note: `Node ${NODE_VERSION}, ${installed ? 'installed' : 'cached'}`,
  };
}

async function ensurePnpm(cache, node) {
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
  const { root, installed } = await installIntoCache(
    cache,
    `pnpm-${version}`,
    `pnpm@${version}`,
    works,
  );
  return { cli: cli(root), note: `pnpm ${version}, ${installed ? 'installed' : 'cached'}` };
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

// What `npm start` serves, and everything it imports.
const GATEWAY_FILTER = '--filter=@toolwire/server...';
// The gateway runs the JavaScript; the type declarations (most of a full build's time) are for
// `npm test` (typecheck, publint, attw) and for publishing. turbo keeps each form apart in its cache.
const WITHOUT_TYPES = ['--', '--no-dts'];

/** The build tasks turbo would run (`--dry=json`): which are cached, and what each waits for. */
function plannedBuild(node, pnpmCli, env) {
  const dry = spawnSync(
    node,
    [pnpmCli, 'exec', 'turbo', 'run', 'build', GATEWAY_FILTER, '--dry=json'],
    { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (dry.status !== 0) return undefined;
  try {
    const tasks = JSON.parse(dry.stdout).tasks.filter((task) => task.command !== '<NONEXISTENT>');
    const names = new Set(tasks.map((task) => task.package));
    return tasks.map((task) => ({
      name: task.package,
      cached: task.cache.status === 'HIT',
      dependsOn: task.dependencies
        .map((id) => id.replace(/#build$/, ''))
        .filter((name) => names.has(name)),
    }));
  } catch {
    return undefined;
  }
}

/**
 * Builds the gateway with turbo, printing one line per package as it finishes. turbo prints each
 * task's output in one block when the task ends (`--log-order=grouped`): that block is the
 * package's "finished"; it started when the last package it depends on finished.
 */
async function buildGateway(node, pnpmCli, env) {
  // The full build when turbo has all of it cached (right after `npm test` or `pnpm build`),
  // else the JavaScript only.
  const plan = plannedBuild(node, pnpmCli, env) ?? [];
  const full = plan.length > 0 && plan.every((task) => task.cached);
  const finished = new Map();
  let fromCache = 0;
  const started = Date.now();
  const width = Math.max(0, ...plan.map((task) => task.name.length));
  const startOf = (task) =>
    Math.max(started, ...task.dependsOn.map((name) => finished.get(name) ?? started));
  const status = await step(
    node,
    [
      pnpmCli,
      'exec',
      'turbo',
      'run',
      'build',
      GATEWAY_FILTER,
      '--output-logs=full',
      '--log-order=grouped',
      ...(full ? [] : WITHOUT_TYPES),
    ],
    {
      cwd: repoRoot,
      env,
      quiet: true,
      label: `building the gateway (${plan.length} packages${full ? ", all in turbo's cache" : ', JavaScript only: `npm test` builds the type declarations'})`,
      onLine(line, say) {
        const match = /^(@[\w.-]+\/[\w.-]+):build: cache (hit|miss|bypass)/.exec(line);
        const task = match && plan.find((each) => each.name === match[1]);
        if (!task || finished.has(task.name)) return;
        const now = Date.now();
        const hit = match[2] === 'hit';
        if (hit) fromCache++;
        const took = hit ? 'from the cache' : seconds(now - startOf(task));
        finished.set(task.name, now);
        say(`  ${task.name.padEnd(width)}  ${took.padStart(7)}  (${finished.size}/${plan.length})`);
      },
      stillRunning() {
        const running = plan.filter(
          (task) => !finished.has(task.name) && task.dependsOn.every((name) => finished.has(name)),
        );
        return running.length > 0
          ? `building ${running.map((task) => task.name).join(', ')}`
          : 'building';
      },
    },
  );
  return {
    status,
    note: `${plan.length} packages, ${fromCache} from turbo's cache${full ? '' : ', no type declarations'}`,
  };
}

async function main() {
  if (!['setup', 'test', 'start', 'bench'].includes(command)) {
    fail(`unknown command "${command}" (expected setup, test, start or bench)`);
  }
  const cache = cacheRoot();
  const nodePhase = await phase('Node', () => ensureNode(cache));
  const { node, headers } = nodePhase.result;
  nodePhase.entry.note = nodePhase.result.note;
  const pnpmPhase = await phase('pnpm', () => ensurePnpm(cache, node));
  const pnpmCli = pnpmPhase.result.cli;
  pnpmPhase.entry.note = pnpmPhase.result.note;
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
  let pnpmProgress = 'pnpm is resolving';
  const install = await phase('dependencies', () =>
    pnpm(['install', '--frozen-lockfile', '--reporter=append-only'], {
      quiet: true,
      label: 'installing dependencies',
      stillRunning: () => pnpmProgress,
      onLine(line) {
        // "Progress: resolved 812, reused 790, downloaded 22, added 600[, done]"
        const progress = /^Progress: (.*?)(, done)?$/.exec(line);
        if (progress)
          pnpmProgress = progress[2]
            ? `pnpm has ${progress[1]}; running install scripts and linking the workspace`
            : `pnpm has ${progress[1]}`;
      },
    }),
  );
  if (install.result !== 0) fail(`pnpm install --frozen-lockfile failed (exit ${install.result})`);

  if (command === 'setup') {
    printPhases('set-up');
    log(`ready. To use this toolchain in a shell: export PATH="${binDir}${sep}$PATH"`);
    return;
  }
  if (command === 'start') {
    const build = await phase('build', () => buildGateway(node, pnpmCli, env));
    build.entry.note = build.result.note;
    if (build.result.status !== 0)
      fail(`the build failed (exit ${build.result.status}); its errors are above`);
    // The binary as users start it: its launcher sets the V8 flags the gateway runs with.
    const server = join(repoRoot, 'apps', 'server', 'bin', 'toolwire-server.cjs');
    if (!existsSync(join(repoRoot, 'apps', 'server', 'dist', 'main.js')))
      fail('the build finished but apps/server/dist/main.js is missing');
    const spawned = Date.now();
    let seen = '';
    let listening = false;
    const exit = await step(node, [server, ...extraArgs], {
      cwd: repoRoot,
      env,
      watch(text) {
        if (listening) return;
        seen = (seen + text).slice(-4096);
        if (!/MCP at /.test(seen)) return;
        listening = true;
        phases.push({ name: 'gateway start', ms: Date.now() - spawned, note: '' });
        printPhases('set-up');
      },
    });
    process.exit(exit);
  }
  printPhases('set-up');
  const script = { test: 'test:all', bench: 'bench' }[command];
  process.exit(await pnpm(['run', script, ...extraArgs]));
}

await main();
