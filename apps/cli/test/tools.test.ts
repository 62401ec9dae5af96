import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, runToolwire, type Sandbox, expectOneLineError } from './helpers.js';

let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(() => sandbox.cleanup());

const run = (args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  runToolwire(args, {
    env: { ...sandbox.env, ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });

describe('toolwire tools list', () => {
  it('lists native tools and the embedded filesystem and memory servers on a fresh machine', async () => {
    const result = await run(['tools', 'list']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+STATUS\s+DESCRIPTION$/);
    // Aligned: every row's SOURCE column starts where the header's does.
    const sourceColumn = lines[0]!.indexOf('SOURCE');
    const hashRow = lines.find((line) => line.startsWith('hash '))!;
    expect(hashRow.slice(sourceColumn)).toMatch(/^native\s+ok\s+/);
    const readRow = lines.find((line) => line.startsWith('fs__read_text_file '))!;
    expect(readRow.slice(sourceColumn)).toMatch(/^fs\s+ok\s+/);
    expect(result.stdout).toMatch(/^memory__read_graph\s+memory\s+ok/m);
    expect(result.stdout).toMatch(/^SERVER\s+STATUS\s+TOOLS/m);
    expect(result.stdout).toMatch(/^fs\s+ok\s+14/m);
    // Piped: no colour codes.
    expect(result.stdout).not.toContain('\u001b[');
    // The demo folder exists under the cache directory with its sample files.
    expect(existsSync(join(sandbox.cache, 'toolwire', 'demo', 'notes', 'todo.txt'))).toBe(true);
  });

  it("prints SPEC's JSON shape with --json before or after the subcommand", async () => {
    for (const args of [
      ['tools', 'list', '--json'],
      ['--json', 'tools', 'list'],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(0);
      const document = JSON.parse(result.stdout) as {
        tools: Array<Record<string, unknown>>;
        servers: Array<Record<string, unknown>>;
      };
      expect(Object.keys(document).sort()).toEqual(['servers', 'tools']);
      for (const tool of document.tools) {
        for (const key of Object.keys(tool)) {
          expect([
            'name',
            'description',
            'source',
            'originalName',
            'status',
            'inputSchema',
            'outputSchema',
            'annotations',
          ]).toContain(key);
        }
        expect(['ok', 'stale', 'unavailable']).toContain(tool.status);
      }
      const hash = document.tools.find((tool) => tool.name === 'hash')!;
      expect(hash).toMatchObject({ source: 'native', originalName: 'hash', status: 'ok' });
      const read = document.tools.find((tool) => tool.name === 'fs__read_text_file')!;
      expect(read).toMatchObject({ source: 'fs', originalName: 'read_text_file', status: 'ok' });
      expect(read.inputSchema).toMatchObject({ type: 'object' });
      expect(document.servers).toEqual([
        { name: 'fs', status: 'ok', tools: 14 },
        { name: 'memory', status: 'ok', tools: 9 },
      ]);
    }
  });

  it('uses ./toolwire.config.json from the working directory, and --config after the subcommand', async () => {
    writeFileSync(
      join(sandbox.home, 'toolwire.config.json'),
      JSON.stringify({ nativeTools: ['hash'] }),
    );
    const local = await run(['tools', 'list', '--json']);
    expect(local.code).toBe(0);
    expect(
      (JSON.parse(local.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
    ).toEqual(['hash']);

    const other = join(sandbox.home, 'other.json');
    writeFileSync(other, JSON.stringify({ nativeTools: ['time', 'calculate'] }));
    const flagged = await run(['tools', 'list', '--json', '--config', other]);
    expect(
      (JSON.parse(flagged.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name),
    ).toEqual(['time', 'calculate']);
  });

  it('loads a Claude Desktop style mcp.json unchanged and reports a server that cannot start as down', async () => {
    const file = join(sandbox.home, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          broken: { command: join(sandbox.home, 'no-such-binary'), args: [] },
          off: { command: 'x', disabled: true },
        },
      }),
    );
    const result = await run(['--config', file, 'tools', 'list', '--json']);
    expect(result.code).toBe(0);
    const document = JSON.parse(result.stdout) as { servers: Array<Record<string, unknown>> };
    const broken = document.servers.find((server) => server.name === 'broken')!;
    expect(broken.status).toBe('down');
    expect(typeof broken.reason).toBe('string');
    expect(document.servers.find((server) => server.name === 'off')).toMatchObject({
      status: 'disabled',
    });
  });

  it('rejects a bad config with its JSON path, exit 2 and one line', async () => {
    const file = join(sandbox.home, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['a', 3] } } }),
    );
    const result = await run(['tools', 'list', '--config', file]);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toContain('mcpServers.fs.args[1]');
    expect(result.stdout).toBe('');

    writeFileSync(file, JSON.stringify({ nativeTool: ['hash'] }));
    const unknownKey = await run(['tools', 'list', '--config', file]);
    expect(unknownKey.code).toBe(2);
    expect(expectOneLineError(unknownKey.stderr)).toMatch(/nativeTool.*nativeTools/);

    const missing = await run(['tools', 'list', '--config', join(sandbox.home, 'nope.json')]);
    expect(missing.code).toBe(2);
    expect(expectOneLineError(missing.stderr)).toContain('nope.json');
  });
});

describe('toolwire tools call', () => {
  it('calls a native tool and prints its result', async () => {
    const result = await run([
      'tools',
      'call',
      'hash',
      '--args',
      '{"data":"hello","algorithm":"sha256"}',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    );
  });

  it('reads and writes the demo folder through the real filesystem server', async () => {
    const write = await run([
      'tools',
      'call',
      'fs__write_file',
      '--args',
      JSON.stringify({ path: 'hello.txt', content: 'written by a test' }),
    ]);
    expect(write.code).toBe(0);
    expect(readFileSync(join(sandbox.cache, 'toolwire', 'demo', 'hello.txt'), 'utf8')).toBe(
      'written by a test',
    );
    const read = await run([
      'tools',
      'call',
      'fs__read_text_file',
      '--args',
      '{"path":"hello.txt"}',
    ]);
    expect(read.code).toBe(0);
    expect(read.stdout.trim()).toBe('written by a test');
  });

  it('prints the MCP result as JSON with --json', async () => {
    const result = await run([
      'tools',
      'call',
      'calculate',
      '--json',
      '--args',
      '{"expression":"6*7"}',
    ]);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout) as {
      content: Array<{ type: string; text: string }>;
      isError?: boolean;
    };
    expect(body.isError ?? false).toBe(false);
    expect(JSON.stringify(body)).toContain('42');
  });

  it('prints the error as JSON on stdout with --json when the call cannot be made', async () => {
    const result = await run(['tools', 'call', 'nosuch', '--json', '--args', '{}']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'no_such_tool', message: expect.stringContaining('"nosuch"') },
    });
    expectOneLineError(result.stderr);
  });

  it('says a down server\'s tool cannot be called now, with the reason, not "no tool named"', async () => {
    const file = join(sandbox.home, 'down.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { broken: { command: join(sandbox.home, 'no-such-binary'), args: [] } },
        nativeTools: ['hash'],
      }),
    );
    const result = await run(['--config', file, 'tools', 'call', 'broken__read', '--json']);
    expect(result.code).toBe(1);
    // The registry's warning about the server, then the error.
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const line = result.stderr.trim().split('\n').at(-1)!;
    expect(line).toMatch(/MCP server "broken" is unavailable.*broken__read.*: \S/);
    expect(line).not.toContain('No tool named');
    expect(JSON.parse(result.stdout)).toMatchObject({ error: { code: 'server_unavailable' } });
  });

  it('names the nearest tools for an unknown name (exit 2)', async () => {
    const result = await run(['tools', 'call', 'fs__read_txt_file', '--args', '{}']);
    expect(result.code).toBe(2);
    const line = expectOneLineError(result.stderr);
    expect(line).toContain('fs__read_txt_file');
    expect(line).toContain('fs__read_text_file');
  });

  it('reports invalid arguments with the validation message (exit 2)', async () => {
    const result = await run([
      'tools',
      'call',
      'hash',
      '--args',
      '{"data":1,"algorithm":"sha256"}',
    ]);
    expect(result.code).toBe(2);
    expect(expectOneLineError(result.stderr)).toMatch(/hash.*\/data.*string/);
  });

  it('rejects --args that is not a JSON object (exit 2)', async () => {
    const notJson = await run(['tools', 'call', 'hash', '--args', '{data:']);
    expect(notJson.code).toBe(2);
    expect(expectOneLineError(notJson.stderr)).toContain('--args is not valid JSON');
    const array = await run(['tools', 'call', 'hash', '--args', '[1]']);
    expect(array.code).toBe(2);
    expect(expectOneLineError(array.stderr)).toContain('--args must be a JSON object');
  });

  it("exits 1 with the tool's own error when the tool fails", async () => {
    const result = await run([
      'tools',
      'call',
      'fs__read_text_file',
      '--args',
      '{"path":"/etc/passwd"}',
    ]);
    expect(result.code).toBe(1);
    expect(expectOneLineError(result.stderr)).toMatch(
      /fs__read_text_file.*failed.*(denied|outside)/i,
    );
  });
});

describe('toolwire usage errors', () => {
  it('rejects unknown flags and commands with one line and exit 2', async () => {
    const flag = await run(['tools', 'list', '--bogus']);
    expect(flag.code).toBe(2);
    expect(expectOneLineError(flag.stderr)).toContain("unknown option '--bogus'");
    const command = await run(['tool', 'list']);
    expect(command.code).toBe(2);
    expect(expectOneLineError(command.stderr)).toMatch(/unknown command 'tool'.*tools/);
  });

  it('prints help and the version with exit 0', { timeout: 60_000 }, async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['tools', 'code', 'chat', 'serve']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(help.stdout).toContain('Examples:');
    // Every subcommand's help names the global flags (they work after it) and shows examples.
    const commands = [
      ['tools'],
      ['tools', 'list'],
      ['tools', 'call'],
      ['code', 'types'],
      ['code', 'run'],
      ['chat'],
      ['serve'],
    ];
    const helps = await Promise.all(commands.map((command) => run([...command, '--help'])));
    for (const [i, command] of commands.entries()) {
      const sub = helps[i]!;
      expect(sub.code).toBe(0);
      expect(sub.stdout).toMatch(/^\s+--config <file>/m);
      expect(sub.stdout).toMatch(/^\s+--json\s/m);
      expect(sub.stdout).toMatch(new RegExp(`Examples:\\n  toolwire ${command[0]}`));
    }
    const version = await run(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
