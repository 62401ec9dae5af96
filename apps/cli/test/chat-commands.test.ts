// `toolwire chat` in a real terminal (tmux): the commands typed at the prompt, a provider that is
// reachable but slow to answer, and `--once` with a spinner that Ctrl-C ends without a word.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeProvider, type FakeProvider } from '@toolwire/testing/providers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, createSandbox, nativeOnlyConfig, type Sandbox } from './helpers.js';
import { hasTmux, TmuxSession } from './tmux.js';

const why = hasTmux ? '' : ' [skipped: tmux is not installed; .ci/run installs it]';
const PROMPT = 'ask something, or /exit';

let sandbox: Sandbox;
let fake: FakeProvider | undefined;
let terminal: TmuxSession | undefined;
let slow: Server | undefined;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(async () => {
  terminal?.close();
  terminal = undefined;
  await fake?.close();
  fake = undefined;
  slow?.closeAllConnections();
  await new Promise((resolve) => (slow ? slow.close(resolve) : resolve(undefined)));
  slow = undefined;
  sandbox.cleanup();
});

function count(screen: string, needle: string): number {
  return screen.split(needle).length - 1;
}

function chat(baseUrl: string, extra: string[] = []): TmuxSession {
  return new TmuxSession(
    [
      process.execPath,
      BIN,
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--provider',
      'openai',
      '--model',
      'first-model',
      '--base-url',
      baseUrl,
      '--api-key',
      'k',
      ...extra,
    ],
    sandbox.env,
  );
}

describe('toolwire chat commands and waits', () => {
  it.skipIf(!hasTmux)(
    `answers /help, /tools, /clear, /model and unknown commands itself, never sending them to the model${why}`,
    async () => {
      fake = await startFakeProvider({
        provider: 'openai',
        turns: [
          { text: 'First answer.' },
          { text: 'After the clear.' },
          { text: 'From the other model.' },
          { text: 'Slash text received.' },
        ],
      });
      const posts = () => fake!.requests.filter((request) => request.method === 'POST');
      terminal = chat(`${fake.url}/v1`);
      const header = await terminal.waitFor(new RegExp(PROMPT));
      expect(header).toContain('/help lists the commands');
      const ready = (after: string) =>
        terminal!.waitFor((screen) => count(screen, PROMPT) === 1 && screen.includes(after));

      terminal.type('/help');
      const help = await terminal.waitFor(/\/model \[id\]/);
      for (const command of ['/help', '/tools', '/clear', '/exit', '//text'])
        expect(help).toContain(command);
      await ready('//text');

      terminal.type('/tools');
      const tools = await terminal.waitFor(/3 tools:/);
      expect(tools).toMatch(/^\s+calculate\s+\S/m);
      expect(tools).toMatch(/^\s+hash\s+\S/m);
      await ready('3 tools:');

      terminal.type('/nope');
      await terminal.waitFor(/unknown command \/nope/);
      await ready('unknown command');
      expect(posts()).toHaveLength(0);

      terminal.type('hello');
      await terminal.waitFor(/First answer\./);
      await ready('First answer.');
      terminal.type('/clear');
      await terminal.waitFor(/conversation cleared/);
      await ready('conversation cleared');
      terminal.type('again');
      await terminal.waitFor(/After the clear\./);
      await ready('After the clear.');
      // A new conversation: the first exchange is not sent.
      expect(JSON.stringify(posts()[1]!.body.messages)).not.toContain('hello');

      terminal.type('/model');
      await terminal.waitFor(/model: openai first-model/);
      await ready('/model <id> switches');
      terminal.type('/model other-model');
      await terminal.waitFor(/model: openai other-model/);
      await ready('model: openai other-model');
      terminal.type('third');
      await terminal.waitFor(/From the other model\./);
      await ready('From the other model.');
      expect(posts()[2]!.body.model).toBe('other-model');
      // The conversation is kept across the switch.
      expect(JSON.stringify(posts()[2]!.body.messages)).toContain('again');

      terminal.type('//slash text');
      await terminal.waitFor(/Slash text received\./);
      expect(posts()[3]!.body.messages.at(-1)).toMatchObject({
        role: 'user',
        content: '/slash text',
      });
      await ready('Slash text received.');
      expect(posts()).toHaveLength(4);
      terminal.type('/exit');
      await terminal.waitFor(/EXITED:0/);
    },
  );

  it.skipIf(!hasTmux)(
    `tells a slow provider (connected, no answer yet) from an absent one, and goes on to the prompt${why}`,
    async () => {
      fake = await startFakeProvider({ provider: 'openai', turns: [{ text: 'Slow but here.' }] });
      const target = fake.url;
      // Accepts connections; HEAD never gets an answer; the model requests go to the fake.
      slow = createServer((req: IncomingMessage, res) => {
        if (req.method === 'HEAD') return;
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          void fetch(`${target}${req.url}`, {
            method: req.method,
            headers: { 'content-type': 'application/json' },
            body: Buffer.concat(chunks),
          }).then(async (answer) => {
            res.writeHead(answer.status, {
              'content-type': answer.headers.get('content-type') ?? 'application/json',
            });
            res.end(Buffer.from(await answer.arrayBuffer()));
          });
        });
      });
      await new Promise<void>((resolve) => slow!.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`;
      terminal = chat(url);
      const screen = await terminal.waitFor(new RegExp(PROMPT));
      expect(screen).toContain(
        `warning: openai at ${url} accepted the connection but sent no answer in 5 s`,
      );
      expect(screen).not.toContain('cannot connect');
      terminal.type('are you there?');
      await terminal.waitFor(/Slow but here\./);
      terminal.type('/exit');
      await terminal.waitFor(/EXITED:0/);
    },
  );

  it.skipIf(!hasTmux)(
    `shows a spinner while --once waits, and Ctrl-C ends it with exit 130 and nothing printed${why}`,
    async () => {
      fake = await startFakeProvider({ provider: 'openai', turns: [{ hang: true }] });
      terminal = chat(`${fake.url}/v1`, ['--once', 'hello']);
      await terminal.waitFor(/Waiting for the answer \(first-model\)/);
      terminal.send('C-c');
      const screen = await terminal.waitFor(/EXITED:\d+/);
      expect(screen).toContain('EXITED:130');
      // The spinner's line is cleared, and nothing follows the keypress.
      expect(screen.replace(/\^C|EXITED:130/g, '').trim()).toBe('');
    },
  );
});
