// The packages as a user gets them: released with changesets into a local registry (Verdaccio),
// installed in fresh projects with npm, pnpm and yarn, and run: each README's first example with
// exactly its install line (pnpm: an import the line forgot fails), the two binaries, and one
// shared check in Node (import and require), Deno, Bun, Chromium (page and module worker) and
// workerd. The root README's package × runtime table must be what ran here.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { readmeExamples } from '@toolwire/readme-check/readme-examples';
import {
  startFakeProvider,
  type FakeProvider,
  type RecordedRequest,
} from '@toolwire/testing/providers';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalRegistry, type LocalRegistry } from './local-registry.js';
import { olderNode } from './older-node.js';
import { publishPackages, repoRoot, type PublishedPackage } from './publish-packages.js';
import { renderRuntimeTable, tableIn, type Runtime } from './runtime-table.js';
import { startSameOriginProxy, type SameOriginProxy } from './same-origin-proxy.js';
import {
  AGENT_TEXT,
  browserCheck,
  cjsCheck,
  esmCheck,
  FAKE_TEXT,
  workerdCheck,
} from './shared-check.js';

const run = promisify(execFile);
const localBin = (name: string) =>
  join(repoRoot, 'tooling', 'registry-check', 'node_modules', '.bin', name);
const STEP_MS = 240_000;

let work: string;
let registry: LocalRegistry;
let published: PublishedPackage[];
const fakes: FakeProvider[] = [];
let proxy: SameOriginProxy;
let npmProject: string;
let gateway: ChildProcess | undefined;
const ran = new Map<Runtime, Set<string>>();
const installSeconds: Record<string, number> = {};

function record(runtime: Runtime, used: readonly string[]): void {
  const set = ran.get(runtime) ?? new Set<string>();
  for (const name of used) set.add(name);
  ran.set(runtime, set);
}

/** A fresh project folder whose `@toolwire/*` come from the local registry. */
function freshProject(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(join(dir, '.npmrc'), `@toolwire:registry=${registry.url}\n${registry.npmrcAuth}`);
  return dir;
}

async function timed(label: string, step: () => Promise<unknown>): Promise<void> {
  const started = performance.now();
  await step();
  installSeconds[label] = (performance.now() - started) / 1000;
}

const quiet = {
  npm_config_update_notifier: 'false',
  npm_config_fund: 'false',
  npm_config_audit: 'false',
};

function openaiTurn(request: RecordedRequest) {
  const messages = (request.body?.messages ?? []) as { role: string }[];
  const tools = (request.body?.tools ?? []) as { function?: { name?: string } }[];
  if (messages.at(-1)?.role === 'tool') return { text: AGENT_TEXT };
  if (tools.some((tool) => tool.function?.name === 'add'))
    return { toolCalls: [{ name: 'add', arguments: { a: 2, b: 3 } }] };
  return { text: FAKE_TEXT };
}

beforeAll(async () => {
  work = mkdtempSync(join(process.env.TOOLWIRE_TMP ?? tmpdir(), 'toolwire-registry-'));
  registry = await startLocalRegistry(join(work, 'registry'));
  published = await publishPackages(registry, work);
  for (const provider of ['openai', 'anthropic', 'ollama', 'google'] as const)
    fakes.push(
      await startFakeProvider({
        provider,
        fallbackTurn: provider === 'openai' ? openaiTurn : { text: FAKE_TEXT },
      }),
    );
  mkdirSync(join(work, 'static'));
  proxy = await startSameOriginProxy(
    Object.fromEntries(fakes.map((fake) => [fake.provider, `${fake.url}/`])),
    join(work, 'static'),
  );
  npmProject = freshProject('npm-project');
  await timed('npm install (every package)', () =>
    // typescript: code mode's optional peer, which the check's type-checked run needs.
    run('npm', ['install', ...published.map((p) => `${p.name}@${p.version}`), 'typescript@5'], {
      cwd: npmProject,
      env: { ...process.env, ...quiet },
    }),
  );
}, 600_000);

afterAll(async () => {
  gateway?.kill('SIGTERM');
  await Promise.all(fakes.map((fake) => fake.close()));
  await proxy?.close();
  await registry?.close();
  if (work && !process.env.TOOLWIRE_KEEP_REGISTRY_CHECK)
    rmSync(work, { recursive: true, force: true });
  // Removing the fresh projects (each with its node_modules) takes a while on a busy machine.
}, 120_000);

describe('releasing into a registry', () => {
  it('changeset version wrote a CHANGELOG entry for every released package', () => {
    expect(published.length).toBe(13);
    for (const pkg of published) expect(pkg.changelog).toContain(`## ${pkg.version}`);
  });

  it('tarballs hold no sources, source maps or test fixtures', async () => {
    for (const pkg of published) {
      const tarball = join(
        work,
        'registry',
        'storage',
        pkg.name,
        `${pkg.name.split('/')[1]}-${pkg.version}.tgz`,
      );
      const { stdout } = await run('tar', ['-tzf', tarball]);
      const files = stdout.trim().split('\n');
      expect(files, pkg.name).toContain('package/LICENSE');
      expect(
        files.filter((file) => /^package\/src\/|\.map$|fixture|\.test\./.test(file)),
        pkg.name,
      ).toEqual([]);
    }
  });
});

describe('the binaries from the registry (npm)', () => {
  it('npx toolwire tools list', { timeout: STEP_MS }, async () => {
    const { stdout } = await run('npx', ['--no-install', 'toolwire', 'tools', 'list', '--json'], {
      cwd: npmProject,
      env: { ...process.env, ...quiet, XDG_CACHE_HOME: join(work, 'cache') },
    });
    const listed = JSON.parse(stdout) as { tools: { name: string; status: string }[] };
    const names = listed.tools.map((tool) => tool.name);
    expect(names).toContain('calculate');
    expect(names.some((name) => name.startsWith('fs__'))).toBe(true);
    record('Node (import)', ['@toolwire/cli', '@toolwire/mcp']);
  });

  it('npx toolwire-server starts and answers tools/list', { timeout: STEP_MS }, async () => {
    const origin = proxy.url.replace(/\/$/, '');
    gateway = spawn(
      'npx',
      ['--no-install', 'toolwire-server', '--port', '0', '--allowed-hosts', origin],
      {
        cwd: npmProject,
        env: { ...process.env, ...quiet, XDG_CACHE_HOME: join(work, 'cache') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      gateway!.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /MCP at (http:\/\/[^\s]+)\/mcp/.exec(stderr)?.[1];
        if (found) resolve(found);
      });
      gateway!.on('exit', (code) =>
        reject(new Error(`toolwire-server exited (${code}): ${stderr}`)),
      );
    });
    const client = new Client({ name: 'registry-check', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((tool) => tool.name)).toContain('calculate');
    proxy.setGateway(`${url}/`);
    record('Node (import)', ['@toolwire/server', '@toolwire/forwarder']);
  });

  it('say in one line which Node they need when started on an older one', async () => {
    const node = olderNode();
    for (const [name, file] of [
      ['toolwire', '@toolwire/cli/bin/toolwire.cjs'],
      ['toolwire-server', '@toolwire/server/bin/toolwire-server.cjs'],
    ] as const) {
      const failure = await run(node, [join(npmProject, 'node_modules', file), '--help']).catch(
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      expect(failure).toMatchObject({ code: 1, stdout: '' });
      const lines = (failure as { stderr: string }).stderr.trim().split('\n');
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(`^${name}: needs Node 22\\.19\\.0 or newer; this is Node 20\\.`),
        ),
      ]);
    }
  });
});

describe('one check in every runtime (npm project)', () => {
  const base = () => proxy.url;

  it('Node, import', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check.mjs'), esmCheck(true));
    const { stdout } = await run(process.execPath, ['check.mjs', base()], { cwd: npmProject });
    record('Node (import)', JSON.parse(stdout) as string[]);
  });

  it('Node, require', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check.cjs'), cjsCheck());
    const { stdout } = await run(process.execPath, ['check.cjs', base()], { cwd: npmProject });
    record('Node (require)', JSON.parse(stdout) as string[]);
  });

  it('Deno', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check-deno.mjs'), esmCheck(false));
    const { stdout } = await run(
      localBin('deno'),
      ['run', '-A', '--node-modules-dir=manual', 'check-deno.mjs', base()],
      {
        cwd: npmProject,
        timeout: 120_000,
        killSignal: 'SIGKILL',
        env: { ...process.env, DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(work, 'deno') },
      },
    );
    record('Deno', JSON.parse(stdout) as string[]);
  });

  it('Bun', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check-bun.mjs'), esmCheck(false));
    const { stdout } = await run(localBin('bun'), ['check-bun.mjs', base()], { cwd: npmProject });
    record('Bun', JSON.parse(stdout) as string[]);
  });

  it('Chromium, page and module worker', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check-browser.mjs'), browserCheck());
    await build({
      entryPoints: [join(npmProject, 'check-browser.mjs')],
      outfile: join(work, 'static', 'check.js'),
      absWorkingDir: npmProject,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      logLevel: 'error',
    });
    writeFileSync(
      join(work, 'static', 'page.html'),
      '<!doctype html><script type="module" src="/check.js"></script>',
    );
    writeFileSync(
      join(work, 'static', 'worker.html'),
      `<!doctype html><script>new Worker('/check.js', { type: 'module' }).onmessage = (event) => { window.checkResult = event.data; };</script>`,
    );
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      for (const [runtime, page] of [
        ['Chromium page', 'page.html'],
        ['Chromium worker', 'worker.html'],
      ] as const) {
        const tab = await browser.newPage();
        await tab.goto(`${proxy.url}${page}`);
        const handle = await tab.waitForFunction(
          () => (globalThis as unknown as { checkResult?: unknown }).checkResult,
          undefined,
          {
            timeout: 60_000,
          },
        );
        const result = (await handle.jsonValue()) as { used?: string[]; error?: string };
        expect(result.error, runtime).toBeUndefined();
        record(runtime, result.used!);
        await tab.close();
      }
    } finally {
      await browser.close();
    }
  });

  it('workerd, without nodejs_compat', { timeout: STEP_MS }, async () => {
    writeFileSync(join(npmProject, 'check-workerd.mjs'), workerdCheck());
    const dir = join(work, 'workerd');
    mkdirSync(dir, { recursive: true });
    await build({
      entryPoints: [join(npmProject, 'check-workerd.mjs')],
      outfile: join(dir, 'worker.js'),
      absWorkingDir: npmProject,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      // What wrangler resolves with.
      conditions: ['workerd', 'worker', 'browser'],
      mainFields: ['browser', 'module', 'main'],
      logLevel: 'error',
    });
    writeFileSync(
      join(dir, 'config.capnp'),
      `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  globalOutbound = "loopback",
);
`,
    );
    // The binary itself: the package's `bin` is a Node wrapper that would not pass fd 3 on.
    const workerd = (createRequire(import.meta.url)('workerd') as { default: string }).default;
    const child = spawn(workerd, ['serve', 'config.capnp', '--control-fd=3'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    try {
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const port = await new Promise<number>((resolve, reject) => {
        let control = '';
        (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
          control += chunk.toString();
          const event = /\{[^\n]*"event":"listen"[^\n]*\}/.exec(control)?.[0];
          if (event) resolve((JSON.parse(event) as { port: number }).port);
        });
        child.on('exit', (code) => reject(new Error(`workerd exited (${code}): ${stderr}`)));
      });
      const answer = await fetch(`http://127.0.0.1:${port}/?base=${encodeURIComponent(base())}`);
      const result = (await answer.json()) as { used?: string[]; error?: string };
      expect(result.error).toBeUndefined();
      record('workerd', result.used!);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

/** The packages a README's install line names (`npm install @toolwire/a @toolwire/b`). */
function installLine(readme: string): string[] | undefined {
  const line = /^npm install (@toolwire\/.+)$/m.exec(
    readFileSync(join(repoRoot, readme), 'utf8'),
  )?.[1];
  return line?.trim().split(/\s+/);
}

describe("each README's install line and first example (pnpm: strict about undeclared imports)", () => {
  const seen = new Set<string>();
  const firsts = readmeExamples().filter((example) => {
    const readme = example.where.split(':')[0]!;
    if (
      example.notRunnable ||
      seen.has(readme) ||
      readme.includes('testing') ||
      readme === 'README.md'
    )
      return false;
    seen.add(readme);
    return true;
  });

  for (const example of firsts) {
    const readme = example.where.split(':')[0]!;
    it(`${readme}`, { timeout: STEP_MS }, async () => {
      const packages = installLine(readme);
      expect(packages, `${readme} has no "npm install @toolwire/…" line`).toBeDefined();
      const project = freshProject(`pnpm-${readme.replace(/[^\w]+/g, '-')}`);
      await timed(`pnpm add (${readme})`, () =>
        run('pnpm', ['add', ...packages!], { cwd: project, env: { ...process.env, ...quiet } }),
      );
      writeFileSync(join(project, 'example.mts'), example.code);
      if (example.config !== undefined)
        writeFileSync(join(project, 'toolwire.config.json'), example.config);
      const [openai, anthropic, ollama, google] = fakes;
      await run(process.execPath, ['example.mts'], {
        cwd: project,
        timeout: 60_000,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          XDG_CACHE_HOME: join(work, 'cache'),
          OPENAI_BASE_URL: `${openai!.url}/v1`,
          OPENAI_API_KEY: 'sk-fake',
          ANTHROPIC_BASE_URL: anthropic!.url,
          ANTHROPIC_API_KEY: 'sk-ant-fake',
          OLLAMA_HOST: ollama!.url,
          GOOGLE_GEMINI_BASE_URL: google!.url,
          GEMINI_API_KEY: 'gemini-fake',
        },
      });
    });
  }
});

describe('yarn', () => {
  it('installs the packages of the check and runs it', { timeout: STEP_MS }, async () => {
    const project = freshProject('yarn-project');
    const names = [
      'schema',
      'config',
      'openai',
      'agent',
      'anthropic',
      'ollama',
      'google',
      'mcp',
    ].map((n) => `@toolwire/${n}`);
    await timed('yarn add (the check)', () =>
      run(localBin('yarn'), ['add', '--silent', '--non-interactive', ...names], {
        cwd: project,
        env: { ...process.env, ...quiet, YARN_CACHE_FOLDER: join(work, 'yarn-cache') },
      }),
    );
    writeFileSync(join(project, 'check.mjs'), esmCheck(false));
    const { stdout } = await run(process.execPath, ['check.mjs', proxy.url], { cwd: project });
    expect(JSON.parse(stdout)).toEqual(names);
  });
});

describe('the root README', () => {
  it('shows the package × runtime table that ran here', () => {
    const table = renderRuntimeTable(published.map((p) => p.name).sort(), ran);
    console.log(`\n${table}\n`);
    console.log(
      published
        .map((p) => `${p.name}@${p.version}: ${(p.tarballBytes / 1024).toFixed(1)} kB`)
        .concat(Object.entries(installSeconds).map(([label, s]) => `${label}: ${s.toFixed(1)} s`))
        .join('\n'),
    );
    expect(tableIn(readFileSync(join(repoRoot, 'README.md'), 'utf8'))).toBe(table);
  });
});
