import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  startFakeProvider,
  type FakeProvider,
  type FakeProviderKind,
} from '@toolwire/testing/providers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSandbox, runToolwire, type Sandbox, nativeOnlyConfig } from './helpers.js';

let sandbox: Sandbox;
let fake: FakeProvider | undefined;
beforeEach(() => {
  sandbox = createSandbox();
});
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  sandbox.cleanup();
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runToolwire(args, { env: { ...sandbox.env, ...env } });

/** A model that calls `calculate` once, then answers with what the tool said. */
const TOOL_THEN_ANSWER = [
  {
    toolCalls: [{ name: 'calculate', arguments: { expression: '6*7' } }],
    usage: { inputTokens: 50, outputTokens: 10 },
  },
  { text: 'Six times seven is 42.', usage: { inputTokens: 80, outputTokens: 8 } },
];

/** The base URL the CLI is given for a fake server of each wire format. */
function baseUrlFor(kind: FakeProviderKind, server: FakeProvider): string {
  return kind === 'openai' || kind === 'openai-responses' ? `${server.url}/v1` : server.url;
}

const CASES: Array<{
  provider: 'openai' | 'openai-responses' | 'anthropic' | 'ollama' | 'xai' | 'google';
  wire: FakeProviderKind;
}> = [
  { provider: 'openai', wire: 'openai' },
  { provider: 'openai-responses', wire: 'openai-responses' },
  { provider: 'anthropic', wire: 'anthropic' },
  { provider: 'ollama', wire: 'ollama' },
  { provider: 'xai', wire: 'openai' },
  { provider: 'google', wire: 'google' },
];

/** Text of every message in a recorded request body, whatever the wire format. */
function bodyText(body: unknown): string {
  return JSON.stringify(body);
}

describe('toolwire chat --once', () => {
  for (const { provider, wire } of CASES) {
    it(`answers through ${provider}, running the tool the model calls`, async () => {
      fake = await startFakeProvider({ provider: wire, turns: TOOL_THEN_ANSWER });
      const result = await run([
        ...nativeOnlyConfig(sandbox.home),
        'chat',
        '--provider',
        provider,
        '--model',
        'test-model',
        '--base-url',
        baseUrlFor(wire, fake),
        '--api-key',
        'test-key',
        '--once',
        'What is 6*7?',
      ]);
      expect(result.stderr).toMatch(/✓ calculate\s+\d+ ms/);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('Six times seven is 42.\n');
      expect(fake.requests).toHaveLength(2);
      const first = bodyText(fake.requests[0]!.body);
      expect(first).toContain('What is 6*7?');
      // Gemini names the model in the path.
      expect(first + fake.requests[0]!.path).toContain('test-model');
      for (const name of ['calculate', 'hash', 'time']) expect(first).toContain(name);
      // The tool's result went back to the model.
      expect(bodyText(fake.requests[1]!.body)).toContain('42');
    });
  }

  it("offers the embedded default tools: native ones and both MCP servers'", async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ text: 'ok' }] });
    const result = await run([
      'chat',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--once',
      'hi',
    ]);
    expect(result.code).toBe(0);
    const tools: string[] = fake.requests[0]!.body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    for (const name of ['calculate', 'hash', 'time', 'fs__read_text_file', 'memory__read_graph']) {
      expect(tools).toContain(name);
    }
  });

  it('prints the transcript of every step with --json', async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: TOOL_THEN_ANSWER });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      '--json',
      'chat',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--once',
      'What is 6*7?',
    ]);
    expect(result.code).toBe(0);
    const transcript = JSON.parse(result.stdout) as {
      mode: string;
      text: string;
      steps: Array<{
        toolCalls?: Array<{ name: string }>;
        toolResults?: Array<{ toolName: string; isError: boolean; content: unknown }>;
      }>;
      usage: { inputTokens: number; outputTokens: number };
    };
    expect(transcript.mode).toBe('direct');
    expect(transcript.text).toBe('Six times seven is 42.');
    expect(transcript.steps).toHaveLength(2);
    expect(transcript.steps[0]!.toolCalls?.map((call) => call.name)).toEqual(['calculate']);
    expect(transcript.steps[0]!.toolResults?.[0]).toMatchObject({
      toolName: 'calculate',
      isError: false,
    });
    expect(JSON.stringify(transcript.steps[0]!.toolResults)).toContain('42');
    expect(transcript.usage).toMatchObject({ inputTokens: 130, outputTokens: 18 });
  });

  it('takes the provider from OPENAI_API_KEY / OPENAI_BASE_URL', async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ text: 'hello from env' }] });
    const result = await run(
      [...nativeOnlyConfig(sandbox.home), 'chat', '--once', 'hi', '--model', 'm'],
      {
        OPENAI_API_KEY: 'sk-from-env',
        OPENAI_BASE_URL: `${fake.url}/v1`,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello from env\n');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
  });

  it('takes the provider from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL', async () => {
    fake = await startFakeProvider({
      provider: 'anthropic',
      turns: [{ text: 'hello from claude' }],
    });
    const result = await run([...nativeOnlyConfig(sandbox.home), 'chat', '--once', 'hi'], {
      ANTHROPIC_API_KEY: 'ak-from-env',
      ANTHROPIC_BASE_URL: fake.url,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello from claude\n');
    const headers = fake.requests[0]!.headers;
    expect([headers['x-api-key'], headers.authorization]).toContain(
      headers['x-api-key'] === undefined ? 'Bearer ak-from-env' : 'ak-from-env',
    );
    expect(fake.lastBody().model).toBe('claude-sonnet-4-6');
  });

  it('takes Google from GEMINI_API_KEY, --base-url being the API root', async () => {
    fake = await startFakeProvider({ provider: 'google', turns: [{ text: 'hello from gemini' }] });
    const result = await run(
      [...nativeOnlyConfig(sandbox.home), 'chat', '--once', 'hi', '--base-url', fake.url],
      {
        GEMINI_API_KEY: 'gk-from-env',
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello from gemini\n');
    expect(fake.requests[0]!.path).toBe('/v1/models/gemini-2.5-flash:streamGenerateContent');
    expect(fake.requests[0]!.headers['x-goog-api-key']).toBe('gk-from-env');
  });

  it('offers the tools in the prompt to an Ollama model that does not support tools', async () => {
    fake = await startFakeProvider({
      provider: 'ollama',
      turns: [
        {
          error: {
            status: 400,
            body: { error: 'registry.ollama.ai/library/gemma:2b does not support tools' },
          },
        },
        {
          text: JSON.stringify({
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: { name: 'calculate', arguments: '{"expression":"6*7"}' },
              },
            ],
          }),
        },
        { text: 'Six times seven is 42.' },
      ],
    });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--provider',
      'ollama',
      '--model',
      'gemma:2b',
      '--base-url',
      fake.url,
      '--once',
      'What is 6*7?',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Six times seven is 42.\n');
    expect(result.stderr).toMatch(/✓ calculate\s+\d+ ms/);
    expect(fake.requests[1]!.body.tools).toBeUndefined();
    expect(bodyText(fake.requests[2]!.body)).toContain('42');
  });

  it('takes Ollama from OLLAMA_HOST', async () => {
    fake = await startFakeProvider({ provider: 'ollama', turns: [{ text: 'hello from llama' }] });
    const result = await run(['chat', '--once', 'hi', '--model', 'llama3.2'], {
      OLLAMA_HOST: fake.url,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('hello from llama\n');
    expect(fake.requests[0]!.path).toBe('/api/chat');
  });

  it("uses the config file's chat section, with ${VAR} expansion", async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ text: 'configured' }] });
    writeFileSync(
      join(sandbox.home, 'toolwire.config.json'),
      JSON.stringify({
        nativeTools: ['calculate'],
        chat: {
          provider: 'openai',
          baseUrl: `${fake.url}/v1`,
          apiKey: '${MY_KEY}',
          model: 'cfg-model',
        },
      }),
    );
    const result = await run(['chat', '--once', 'hi'], { MY_KEY: 'secret-1' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('configured\n');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer secret-1');
    expect(fake.lastBody().model).toBe('cfg-model');
    const tools = fake.requests[0]!.body.tools as Array<{ function: { name: string } }>;
    expect(tools.map((tool) => tool.function.name)).toEqual(['calculate']);
  });

  it('gives the model execute_code with --mode code and runs the code it writes', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [
        {
          toolCalls: [
            {
              name: 'execute_code',
              arguments: {
                code: 'const a = await calculate({ expression: "6*7" });\nreturn a.result;',
              },
            },
          ],
        },
        { text: 'The code says 42.' },
      ],
    });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--mode',
      'code',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--once',
      'compute',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('The code says 42.\n');
    const tools = fake.requests[0]!.body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    expect(tools).toEqual(['execute_code']);
    expect(fake.requests[0]!.body.tools[0].function.description).toContain(
      'declare function calculate',
    );
    expect(bodyText(fake.requests[1]!.body)).toContain('42');
  });

  it('picks code or direct tools per model from codeMode.models, and the model can search()', async () => {
    const file = join(sandbox.home, 'per-model.json');
    writeFileSync(
      file,
      JSON.stringify({
        nativeTools: ['hash', 'time', 'calculate'],
        codeMode: { defaults: { enabled: true }, models: [{ match: 'small-*', enabled: false }] },
      }),
    );
    const code = [
      "const [hit] = await search('evaluate an arithmetic expression', { limit: 1 });",
      'const call = (tools as unknown as Record<string, (input: unknown) => Promise<{ result: number }>>)[hit!.identifier]!;',
      "return { tool: hit!.name, result: (await call({ expression: '6*7' })).result };",
    ].join('\n');
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [
        { toolCalls: [{ name: 'execute_code', arguments: { code } }] },
        { text: 'Found calculate: 42.' },
        { text: 'Direct.' },
      ],
    });
    const chat = (model: string) =>
      run([
        ...['--config', file, 'chat', '--provider', 'openai', '--model', model],
        ...['--base-url', `${fake!.url}/v1`, '--api-key', 'k', '--once', 'compute'],
      ]);
    const big = await chat('big-1');
    expect(big.code).toBe(0);
    expect(big.stdout).toBe('Found calculate: 42.\n');
    const offered = fake.requests[0]!.body.tools as Array<{
      function: { name: string; description: string };
    }>;
    expect(offered.map((tool) => tool.function.name)).toEqual(['execute_code']);
    // The tool result text, JSON-escaped inside the request body.
    expect(bodyText(fake.requests[1]!.body)).toContain('\\"tool\\": \\"calculate\\"');
    expect(bodyText(fake.requests[1]!.body)).toContain('\\"result\\": 42');
    // `code prompt` shows exactly the description the model got.
    const prompt = await run(['--config', file, 'code', 'prompt', '--model', 'big-1', '--json']);
    expect(JSON.parse(prompt.stdout).description).toBe(offered[0]!.function.description);

    const small = await chat('small-3b');
    expect(small.code).toBe(0);
    const direct = fake.requests[2]!.body.tools as Array<{ function: { name: string } }>;
    expect(direct.map((tool) => tool.function.name)).toEqual(['hash', 'time', 'calculate']);
  });

  it('runs the staged pipeline with --mode staged', async () => {
    fake = await startFakeProvider({
      provider: 'openai',
      turns: [
        { text: JSON.stringify({ reasoning: 'arithmetic', selected_tools: ['calculate'] }) },
        { toolCalls: [{ name: 'calculate', arguments: { expression: '6*7' } }] },
        { text: JSON.stringify({ content: 'Staged: 42.' }) },
      ],
    });
    const result = await run([
      ...nativeOnlyConfig(sandbox.home),
      'chat',
      '--mode',
      'staged',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--once',
      'What is 6*7?',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Staged: 42.\n');
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[0]!.body.response_format.json_schema.name).toBe('tool_selection');
    // Only the selected tool is offered for the call.
    const calling = fake.requests[1]!.body.tools as Array<{ function: { name: string } }>;
    expect(calling.map((tool) => tool.function.name)).toEqual(['calculate']);
  });

  it('offers one tool per server with --mode gateway', async () => {
    fake = await startFakeProvider({ provider: 'openai', turns: [{ text: 'ok' }] });
    const result = await run([
      'chat',
      '--mode',
      'gateway',
      '--provider',
      'openai',
      '--model',
      'm',
      '--base-url',
      `${fake.url}/v1`,
      '--api-key',
      'k',
      '--once',
      'hi',
    ]);
    expect(result.code).toBe(0);
    const tools: string[] = fake.requests[0]!.body.tools.map(
      (tool: { function: { name: string } }) => tool.function.name,
    );
    expect(tools).not.toContain('fs__read_text_file');
    expect(tools.length).toBeLessThan(10);
  });
});
