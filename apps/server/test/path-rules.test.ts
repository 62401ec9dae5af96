/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON-RPC answers */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modernCall, startGateway, waitFor, type TestGateway } from './helpers.js';

// The real @modelcontextprotocol/server-filesystem serving `data`, with a path rule from the config
// that keeps its tools inside `data/public`; and an alias that a block must cover.
const filesystemBin = fileURLToPath(
  new URL('../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url),
);

describe('startServer policy.paths with server-filesystem', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'toolwire-paths-')));
  const data = join(base, 'data');
  const root = join(data, 'public');
  let gw: TestGateway;
  let blocked: TestGateway;

  beforeAll(async () => {
    mkdirSync(root, { recursive: true });
    writeFileSync(join(data, 'secret.txt'), 'TOP SECRET');
    writeFileSync(join(root, 'hello.txt'), 'hello');
    symlinkSync(join(data, 'secret.txt'), join(root, 'link.txt'));
    const fs = { command: process.execPath, args: [filesystemBin, data] };
    gw = await startGateway({
      mcpServers: { fs },
      policy: { paths: [{ tools: ['fs__*'], roots: [root] }] },
    });
    blocked = await startGateway({
      mcpServers: { fs },
      namespace: { aliases: { fs__read_text_file: 'read_file' } },
      policy: { block: ['fs__*'] },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await blocked?.close();
  });

  const call = (g: TestGateway, name: string, args: Record<string, unknown>) =>
    modernCall(`${g.url}/mcp`, 'tools/call', { name, arguments: args });
  const refusal = (answer: any): string => {
    expect(answer.body.error, JSON.stringify(answer.body)).toBeDefined();
    expect(answer.body.error.data.policy).toBe('policy.paths');
    return answer.body.error.message as string;
  };

  it('reads inside the root', async () => {
    const ok = await call(gw, 'fs__read_text_file', { path: join(root, 'hello.txt') });
    expect(JSON.stringify(ok.body.result)).toContain('hello');
  });

  it('resolves a relative path the way server-filesystem does (against its directory)', async () => {
    expect(refusal(await call(gw, 'fs__read_text_file', { path: 'secret.txt' }))).toContain(
      'outside the allowed roots',
    );
    const inside = await call(gw, 'fs__read_text_file', { path: 'public/hello.txt' });
    expect(JSON.stringify(inside.body.result)).toContain('hello');
  });

  it('follows a symlink inside the root to its target outside', async () => {
    expect(refusal(await call(gw, 'fs__read_text_file', { path: join(root, 'link.txt') }))).toMatch(
      /symlink/,
    );
  });

  it("checks move_file's source and destination", async () => {
    const out = await call(gw, 'fs__move_file', {
      source: join(root, 'hello.txt'),
      destination: join(data, 'moved.txt'),
    });
    expect(refusal(out)).toContain('destination');
    const inward = await call(gw, 'fs__move_file', {
      source: join(data, 'secret.txt'),
      destination: join(root, 'taken.txt'),
    });
    expect(refusal(inward)).toContain('source');
    expect(existsSync(join(data, 'secret.txt'))).toBe(true);
    expect(existsSync(join(data, 'moved.txt'))).toBe(false);
  });

  it('refuses "..", "~" and URL-encoded forms', async () => {
    for (const path of [`${root}/../secret.txt`, '~/secret.txt', `${root}/%2e%2e/secret.txt`]) {
      refusal(await call(gw, 'fs__read_text_file', { path }));
    }
  });

  it('reads nothing outside the root while a symlink inside it is swapped back and forth', async () => {
    // Another writer flips root/swap.txt between a link to hello.txt (inside) and one to
    // secret.txt (outside), atomically, as fast as it can, while the client reads it.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const [inside, outside, link] = process.argv.slice(1);
         for (let i = 0; ; i++) {
           const next = link + '.next';
           try { fs.unlinkSync(next); } catch {}
           fs.symlinkSync(i % 2 ? outside : inside, next);
           fs.renameSync(next, link);
         }`,
        join(root, 'hello.txt'),
        join(data, 'secret.txt'),
        join(root, 'swap.txt'),
      ],
      { stdio: 'ignore' },
    );
    let leaked = 0;
    let read = 0;
    let refused = 0;
    try {
      await waitFor(() => existsSync(join(root, 'swap.txt')) || undefined, 'the swapper to start');
      for (let i = 0; i < 300; i++) {
        const answer = await call(gw, 'fs__read_text_file', { path: join(root, 'swap.txt') });
        const text = JSON.stringify(answer.body);
        if (text.includes('TOP SECRET')) leaked++;
        else if (text.includes('hello')) read++;
        else if (answer.body.error?.data?.policy === 'policy.paths') refused++;
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(leaked, `${read} reads of hello.txt, ${refused} refused`).toBe(0);
    // Both states of the link were seen: the race was run.
    expect(read).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('warns at load of a rule whose arguments leave out a path argument of a filesystem tool', async () => {
    const partial = await startGateway({
      mcpServers: { fs: { command: process.execPath, args: [filesystemBin, data] } },
      policy: { paths: [{ tools: ['fs__*'], arguments: ['path'], roots: [root] }] },
    });
    try {
      const warning = partial.logs.find(
        (line) => line.level === 'warn' && String(line.msg).startsWith('policy.paths[0]'),
      );
      expect(warning?.msg).toMatch(/"source" \(fs__move_file\)/);
      expect(warning?.msg).toMatch(/"destination" \(fs__move_file\)/);
      expect(warning?.msg).toMatch(/"paths\.\*" \(fs__read_multiple_files\)/);
      // The rule as written still applies to what it names; moves are the operator's to fix.
      expect(gw.logs.some((line) => String(line.msg).startsWith('policy.paths['))).toBe(false);
    } finally {
      await partial.close();
    }
  });

  it('blocks an alias with the namespaced name it stands for', async () => {
    const list = await modernCall(`${blocked.url}/mcp`, 'tools/list');
    expect(list.body.result.tools.map((t: any) => t.name)).not.toContain('read_file');
    const read = await call(blocked, 'read_file', { path: join(data, 'secret.txt') });
    // Answered as a tool that does not exist; the audit line names the rule and the namespaced name.
    expect(read.body.error, JSON.stringify(read.body)).toEqual({
      code: -32602,
      message: 'Unknown tool: read_file',
      data: { tool: 'read_file' },
    });
    const line = blocked.logs.find((l) => l.event === 'tool_call' && l.tool === 'read_file');
    expect(line).toMatchObject({
      outcome: 'refused',
      error: expect.stringMatching(/policy\.block/),
    });
    expect(line!.error).toContain('fs__read_text_file');
  });
});
