import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, createSandbox, type Sandbox, nativeOnlyConfig } from './helpers.js';
import { hasTmux, TmuxSession } from './tmux.js';

const why = hasTmux ? '' : ' [skipped: tmux is not installed; .ci/run installs it]';

let sandbox: Sandbox;
let fake: FakeProvider | undefined;
let terminal: TmuxSession | undefined;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await fake?.close();
  fake = undefined;
  sandbox.cleanup();
});

/** A colour (SGR) escape sequence. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);

/** Counts how often `needle` appears on the screen. */
function count(screen: string, needle: string): number {
  return screen.split(needle).length - 1;
}

describe('toolwire chat in a terminal', () => {
  it.skipIf(!hasTmux)(
    `streams answers, shows tool calls with their duration, and Ctrl-C cancels only the current turn${why}`,
    async () => {
      fake = await startFakeProvider({
        provider: 'openai',
        turns: [
          { toolCalls: [{ name: 'calculate', arguments: { expression: '6*7' } }] },
          { text: 'Six times seven is 42.', chunking: { textChunkSize: 2 } },
          // Streams the start of an answer, then goes silent: only Ctrl-C ends this turn.
          {
            stallAfter: 4,
            turn: {
              text: 'Partial words arrive one by one and then stop.',
              chunking: { textChunkSize: 4 },
            },
          },
          { text: 'Back after the cancel.' },
        ],
      });
      terminal = new TmuxSession(
        [
          process.execPath,
          BIN,
          ...nativeOnlyConfig(sandbox.home),
          'chat',
          '--provider',
          'openai',
          '--model',
          'test-model',
          '--base-url',
          `${fake.url}/v1`,
          '--api-key',
          'k',
        ],
        sandbox.env,
      );
      const prompt = 'ask something, or /exit';
      const header = await terminal.waitFor(new RegExp(prompt));
      expect(header).toContain('openai test-model');

      terminal.type('What is 6*7?');
      const answered = await terminal.waitFor(/Six times seven is 42\./);
      expect(answered).toMatch(/→ calculate \{"expression":"6\*7"\}/);
      expect(answered).toMatch(/✓ calculate\s+\d+ ms/);

      await terminal.waitFor((screen) => count(screen, prompt) === 1 && screen.includes('42.'));
      terminal.type('Tell me more');
      // Text shows as it streams in, before the answer is complete.
      const partial = await terminal.waitFor(/Partial/);
      expect(partial).not.toContain('and then stop.');
      // Model requests only: the chat's start-up check of the address is a HEAD request.
      const posts = () => fake!.requests.filter((request) => request.method === 'POST');
      expect(posts()).toHaveLength(3);
      terminal.send('C-c');
      await terminal.waitFor(/answer cancelled/);
      // The session goes on: a new prompt, and the next question is answered.
      await terminal.waitFor(
        (screen) => count(screen, prompt) === 1 && screen.includes('cancelled'),
      );
      expect(terminal.capture()).not.toContain('EXITED');
      terminal.type('And now?');
      await terminal.waitFor(/Back after the cancel\./);

      // The cancelled turn is not part of the conversation; the first exchange is.
      const sent = JSON.stringify(posts()[3]!.body.messages);
      expect(sent).toContain('What is 6*7?');
      expect(sent).toContain('Six times seven is 42.');
      expect(sent).toContain('And now?');
      expect(sent).not.toContain('Tell me more');

      terminal.type('/exit');
      await terminal.waitFor(/EXITED:0/);
      // Colour in a terminal.
      expect(terminal.capture(true)).toContain('\u001b[');
    },
  );

  it.skipIf(!hasTmux)(`uses colour in a terminal unless NO_COLOR is set${why}`, async () => {
    const args = [process.execPath, BIN, ...nativeOnlyConfig(sandbox.home), 'tools', 'list'];
    terminal = new TmuxSession(args, sandbox.env);
    await terminal.waitFor(/EXITED:0/);
    const coloured = terminal.capture(true);
    expect(coloured).toMatch(SGR);
    expect(terminal.capture()).toMatch(/^calculate\s+native\s+ok/m);
    terminal.close();

    terminal = new TmuxSession(args, { ...sandbox.env, NO_COLOR: '1' });
    await terminal.waitFor(/EXITED:0/);
    expect(terminal.capture(true)).not.toMatch(SGR);
  });

  it.skipIf(!hasTmux)(`shows progress on stderr while MCP servers connect${why}`, async () => {
    const file = join(sandbox.home, 'slow.json');
    // A server that never answers the handshake: discovery waits for its connect timeout.
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          slow: {
            command: process.execPath,
            args: ['-e', 'setInterval(() => {}, 1000)'],
            connectTimeoutMs: 4000,
          },
        },
        nativeTools: ['hash'],
      }),
    );
    terminal = new TmuxSession(
      [process.execPath, BIN, '--config', file, 'tools', 'list'],
      sandbox.env,
    );
    await terminal.waitFor(/Connecting to (1 MCP server|MCP servers \(0\/1 ready\))/);
    const done = await terminal.waitFor(/EXITED:0/);
    // The spinner line is gone once the table is printed.
    expect(done).not.toContain('Connecting to');
    expect(done).toMatch(/^slow\s+down/m);
  });

  it.skipIf(!hasTmux)(
    `marks a failed tool call and quits on Ctrl-C twice at the prompt${why}`,
    async () => {
      fake = await startFakeProvider({
        provider: 'anthropic',
        turns: [
          { toolCalls: [{ name: 'calculate', arguments: { expression: '1 +' } }] },
          { text: 'That expression is incomplete.' },
        ],
      });
      terminal = new TmuxSession(
        [
          process.execPath,
          BIN,
          ...nativeOnlyConfig(sandbox.home),
          'chat',
          '--provider',
          'anthropic',
          '--model',
          'claude-sonnet-4-6',
          '--base-url',
          fake.url,
          '--api-key',
          'k',
        ],
        sandbox.env,
      );
      const prompt = 'ask something, or /exit';
      await terminal.waitFor(new RegExp(prompt));
      terminal.type('What is 1 + ?');
      const screen = await terminal.waitFor(/That expression is incomplete\./);
      expect(screen).toMatch(/✗ calculate\s+\d+ ms\s+\S/);
      await terminal.waitFor((text) => count(text, prompt) === 1 && text.includes('incomplete.'));
      terminal.send('C-c');
      await terminal.waitFor(/Ctrl-C again or \/exit to quit/);
      expect(terminal.capture()).not.toContain('EXITED');
      await terminal.waitFor((text) => count(text, prompt) === 1 && text.includes('Ctrl-C again'));
      terminal.send('C-c');
      await terminal.waitFor(/EXITED:0/);
    },
  );

  it.skipIf(!hasTmux)(
    `shows a provider's failure on that turn (not as a cancel) and the session goes on${why}`,
    async () => {
      fake = await startFakeProvider({
        provider: 'openai',
        turns: [
          {
            error: {
              status: 401,
              body: {
                error: { message: 'Incorrect API key provided', type: 'invalid_request_error' },
              },
            },
          },
          { text: 'Works now.' },
        ],
      });
      terminal = new TmuxSession(
        [
          process.execPath,
          BIN,
          ...nativeOnlyConfig(sandbox.home),
          'chat',
          '--provider',
          'openai',
          '--model',
          'test-model',
          '--base-url',
          `${fake.url}/v1`,
          '--api-key',
          'wrong',
        ],
        sandbox.env,
      );
      const prompt = 'ask something, or /exit';
      await terminal.waitFor(new RegExp(prompt));
      terminal.type('hello');
      const failed = await terminal.waitFor(/error:.*Incorrect API key provided/);
      expect(failed).toContain(`openai at ${fake.url}/v1`);
      expect(failed).not.toContain('answer cancelled');
      await terminal.waitFor((screen) => count(screen, prompt) === 1 && screen.includes('error:'));
      terminal.type('again');
      await terminal.waitFor(/Works now\./);
      terminal.type('/exit');
      await terminal.waitFor(/EXITED:0/);
    },
  );

  it.skipIf(!hasTmux)(
    `says at start, before any prompt, when nothing answers at the provider's address${why}`,
    async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      terminal = new TmuxSession(
        [
          process.execPath,
          BIN,
          ...nativeOnlyConfig(sandbox.home),
          'chat',
          '--provider',
          'openai',
          '--model',
          'test-model',
          '--base-url',
          `http://127.0.0.1:${port}/v1`,
          '--api-key',
          'k',
        ],
        sandbox.env,
      );
      const screen = await terminal.waitFor(/EXITED:\d/);
      expect(screen).toContain(`error: cannot connect to openai at http://127.0.0.1:${port}/v1: `);
      expect(screen).toContain('ECONNREFUSED');
      expect(screen).toContain('EXITED:1');
      expect(screen).not.toContain('ask something');
    },
  );

  it.skipIf(!hasTmux)(
    `exits quietly when the reader of its output goes away (| head -1)${why}`,
    async () => {
      const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
      const toolwire = `${quote(process.execPath)} ${quote(BIN)}`;
      // The embedded default (native tools and two MCP servers): several writes after head exits.
      const script = [
        `${toolwire} tools list | head -1; echo "list:\${PIPESTATUS[0]}"`,
        `${toolwire} code types | head -1; echo "types:\${PIPESTATUS[0]}"`,
        `${toolwire} --help | head -1; echo "help:\${PIPESTATUS[0]}"`,
      ].join('; ');
      terminal = new TmuxSession(['bash', '-c', script], sandbox.env);
      const screen = await terminal.waitFor(/EXITED:\d/, 60_000);
      expect(screen).toContain('list:0');
      expect(screen).toContain('types:0');
      expect(screen).toContain('help:0');
      expect(screen).not.toMatch(/EPIPE|Unhandled 'error' event|\n\s+at /);
    },
  );
});
