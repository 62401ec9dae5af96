import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureStdioConfig } from '@toolwire/testing/mcp';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN_DIR } from './global-setup.js';
import { MODERN, modernCall, waitFor } from './helpers.js';

const BIN = join(BIN_DIR, 'main.js');

function configFile(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-bin-'));
  const file = join(dir, 'toolwire.config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  exit: Promise<number | null>;
}

async function run(args: string[]): Promise<Running> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await waitFor(
    () => /MCP at (http:\/\/[^\s]+)\/mcp/.exec(err)?.[1],
    `the server to start (stderr: ${err})`,
  );
  return { child, url, stdout: () => out, exit };
}

describe('toolwire-server binary', () => {
  let running: Running | undefined;
  afterEach(async () => {
    if (running && running.child.exitCode === null) {
      running.child.kill('SIGKILL');
      await running.exit;
    }
    running = undefined;
  });

  it('refuses bad flags and bad config files with one line and exit code 2', () => {
    const badPort = spawnSync(process.execPath, [BIN, '--port', 'eighty'], { encoding: 'utf8' });
    expect(badPort.status).toBe(2);
    expect(badPort.stderr).toMatch(/^toolwire-server: --port: expected a port number/);
    const file = configFile({ mcpServers: { fs: { command: 'x', args: ['ok', 3] } } });
    const badConfig = spawnSync(process.execPath, [BIN, '--config', file, '--port', '0'], {
      encoding: 'utf8',
    });
    expect(badConfig.status).toBe(2);
    expect(badConfig.stderr.split('\n')[0]).toMatch(/mcpServers\.fs\.args\[1\]/);
    expect(badConfig.stderr).not.toMatch(/\n\s+at /);
  });

  it('shows examples in --help', () => {
    const help = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Examples:\n {2}toolwire-server /);
  });

  it('reloads on SIGHUP and stops gracefully on SIGTERM: the in-flight call finishes, children stop', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'toolwire-bin-log-')), 'calls.jsonl');
    const file = configFile({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['slow', 'echo'], logFile }) },
    });
    running = await run(['--config', file, '--port', '0']);
    const { url, child } = running;
    const ready = (await (await fetch(`${url}/readyz`)).json()) as {
      servers: Array<{ status: string }>;
    };
    expect(ready.servers[0]!.status).toBe('ok');
    const fixturePid = Number(
      spawnSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' })
        .stdout.split('\n')
        .find((line) => line.includes('fixture-server'))!
        .trim()
        .split(/\s+/)[0],
    );
    expect(fixturePid).toBeGreaterThan(0);

    child.kill('SIGHUP');
    await waitFor(() => running!.stdout().includes('"config reloaded"') || undefined, 'the reload');

    const slow = modernCall(`${url}/mcp`, 'tools/call', {
      name: 'fx__slow',
      arguments: { ms: 700 },
    });
    // The signal goes once the call is running upstream (the fixture logs each call it starts).
    await waitFor(
      () => (existsSync(logFile) && readFileSync(logFile, 'utf8').includes('"slow"')) || undefined,
      'the slow call to start',
    );
    child.kill('SIGTERM');
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).not.toBe(true);
    expect(await running.exit).toBe(0);
    expect(() => process.kill(fixturePid, 0)).toThrow();
    const lines = running
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(
      expect.arrayContaining([
        'listening',
        'config reloaded',
        'tool call',
        'shutting down',
        'stopped',
      ]),
    );
  });

  it('keeps reloading after a refused save: a later valid save and SIGHUP both apply', async () => {
    const file = configFile({ nativeTools: ['hash'] });
    running = await run(['--config', file, '--port', '0']);
    const { url, child } = running;
    const count = (msg: string) => running!.stdout().split(`"msg":"${msg}`).length - 1;
    const toolNames = async () =>
      (
        (await modernCall(`${url}/mcp`, 'tools/list', {})).body.result.tools as Array<{
          name: string;
        }>
      ).map((t) => t.name);
    expect(await toolNames()).toEqual(['hash']);

    writeFileSync(file, '{ "nativeTools": ["hash"], "nativTools": [] }');
    await waitFor(() => count('config reload refused') === 1 || undefined, 'the refused reload');

    writeFileSync(file, JSON.stringify({ nativeTools: ['hash', 'time'] }));
    await waitFor(() => count('config reloaded') === 1 || undefined, 'the reload after a fix');
    expect((await toolNames()).sort()).toEqual(['hash', 'time']);

    // A refused SIGHUP reload, then a good one.
    writeFileSync(file, '{ "nativeTools": 3 }');
    child.kill('SIGHUP');
    await waitFor(() => count('config reload refused') >= 2 || undefined, 'the second refusal');
    writeFileSync(file, JSON.stringify({ nativeTools: ['calculate'] }));
    child.kill('SIGHUP');
    await waitFor(() => count('config reloaded') >= 2 || undefined, 'the SIGHUP reload');
    expect(await toolNames()).toContain('calculate');
  });

  it('exits 2 with one line when the port is busy, before any MCP server starts', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const logFile = join(mkdtempSync(join(tmpdir(), 'toolwire-bin-busy-')), 'calls.jsonl');
    const file = configFile({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['echo'], logFile }) },
    });
    try {
      const child = spawn(process.execPath, [BIN, '--config', file, '--port', String(port)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => {
        // A hang detector, not a timing assertion: on failure the gateway stayed up for good.
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve(null);
        }, 15_000);
        child.on('exit', (exitCode) => {
          clearTimeout(timer);
          resolve(exitCode);
        });
      });
      expect(err).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(code).toBe(2);
    } finally {
      blocker.close();
    }
  });

  it('drains on SIGTERM: not ready at once, still serving, then closing each connection after its answer; in-flight calls finish', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'toolwire-bin-log-')), 'calls.jsonl');
    const file = configFile({
      mcpServers: { fx: fixtureStdioConfig({ tools: ['slow', 'echo'], logFile }) },
    });
    running = await run(['--config', file, '--port', '0', '--drain-ms', '1500']);
    const { url, child } = running;
    expect((await plainGet(`${url}/readyz`)).status).toBe(200);
    const slow = modernCall(`${url}/mcp`, 'tools/call', {
      name: 'fx__slow',
      arguments: { ms: 1000 },
    });
    await waitFor(
      () => (existsSync(logFile) && readFileSync(logFile, 'utf8').includes('"slow"')) || undefined,
      'the slow call to start',
    );
    child.kill('SIGTERM');
    await waitFor(() => running!.stdout().includes('"draining"') || undefined, 'the drain');
    const ready = await plainGet(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({ status: 'draining' });
    expect((await plainGet(`${url}/healthz`)).status).toBe(200);
    // A call that reaches a draining instance is served as before, keep-alive included (closing
    // connections now would only make nginx open new ones, each of which the close could reset).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const echo = (text: string) =>
      plainPost(
        `${url}/mcp`,
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'fx__echo', arguments: { text } },
        },
        agent,
      );
    const during = await echo('during the drain');
    expect(during.status).toBe(200);
    expect(during.headers.connection).toBe('keep-alive');
    expect(during.body).toContain('during the drain');
    // Once the listener is closed a new connection is refused (nginx resends that request
    // elsewhere), and a request on the kept connection is served and closes it.
    await waitFor(
      () =>
        plainRequest(`${url}/healthz`, 'GET', undefined, new Agent()).then(
          () => undefined,
          (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED' || undefined,
        ),
      'new connections to be refused',
    );
    const after = await echo('after the listener closed');
    expect(after.status).toBe(200);
    expect(after.headers.connection).toBe('close');
    expect(after.body).toContain('after the listener closed');
    agent.destroy();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).not.toBe(true);
    expect(await running.exit).toBe(0);
    const messages = running
      .stdout()
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(messages.indexOf('draining')).toBeLessThan(messages.indexOf('shutting down'));
    expect(messages).toContain('stopped');
  });

  it('refuses a bad --drain-ms with one line and exit code 2', () => {
    const bad = spawnSync(process.execPath, [BIN, '--drain-ms', 'soon'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/^toolwire-server: --drain-ms: expected a whole number/);
  });
});

interface PlainAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** node:http, not fetch: the test reads the Connection header, which fetch hides. */
function plainRequest(
  url: string,
  method: string,
  body?: unknown,
  agent?: Agent,
): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      url,
      {
        method,
        ...(agent ? { agent } : {}),
        headers: {
          accept: 'application/json, text/event-stream',
          ...(payload !== undefined
            ? {
                'content-type': 'application/json',
                'mcp-protocol-version': MODERN,
                'mcp-method': 'tools/call',
                'mcp-name': 'fx__echo',
              }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const plainGet = (url: string) => plainRequest(url, 'GET');
const plainPost = (url: string, body: Record<string, unknown>, agent?: Agent) =>
  plainRequest(
    url,
    'POST',
    {
      ...body,
      params: {
        ...(body.params as Record<string, unknown>),
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' },
        },
      },
    },
    agent,
  );
