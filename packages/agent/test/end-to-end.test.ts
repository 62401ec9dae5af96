// The agent end to end: each real adapter (its vendor SDK over HTTP) against the fake provider
// server, with real MCP servers from npm (server-filesystem, server-memory) over stdio for tools.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAnthropic } from '@toolwire/anthropic';
import { createCodeMode, type CodeMode } from '@toolwire/codemode';
import { createRegistry, type Registry } from '@toolwire/mcp/node';
import { createOllama } from '@toolwire/ollama';
import { createOpenAI } from '@toolwire/openai';
import { CancelledError, type ChatModel } from '@toolwire/schema';
import {
  startFakeProvider,
  type FakeProvider,
  type FakeProviderKind,
  type FakeTurn,
  type RecordedRequest,
} from '@toolwire/testing/providers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type AgentEvent } from '../src/index.js';

const bin = (name: string) =>
  fileURLToPath(
    new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url),
  );
const dir = mkdtempSync(join(tmpdir(), 'toolwire-agent-'));
const hello = join(dir, 'hello.txt');
writeFileSync(hello, 'hello from toolwire\n');

let registry: Registry;
let codeMode: CodeMode;

beforeAll(async () => {
  registry = createRegistry({
    config: {
      mcpServers: {
        fs: { command: process.execPath, args: [bin('server-filesystem'), dir] },
        memory: {
          command: process.execPath,
          args: [bin('server-memory')],
          env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
        },
      },
    },
  });
  await registry.start();
  const down = registry.servers().filter((server) => server.status !== 'ok');
  if (down.length > 0) throw new Error(`MCP servers not up: ${JSON.stringify(down)}`);
  codeMode = createCodeMode({ source: registry, excludedTools: ['calculate'] });
});

afterAll(async () => {
  await codeMode?.close();
  await registry?.close();
});

const models: Record<'openai' | 'anthropic' | 'ollama', (url: string) => ChatModel> = {
  openai: (url) => createOpenAI({ baseURL: `${url}/v1`, apiKey: 'test-key' })('gpt-test'),
  anthropic: (url) => createAnthropic({ baseURL: url, apiKey: 'test-key' })('claude-test'),
  ollama: (url) => createOllama({ host: url })('llama-test'),
};

type Body = Record<string, unknown> & { messages: Array<Record<string, unknown>> };

/** Tool names declared in a request, whatever the wire format. */
function declaredTools(provider: FakeProviderKind, request: RecordedRequest): string[] {
  const tools = ((request.body as Body).tools ?? []) as Array<Record<string, unknown>>;
  return tools.map((tool) =>
    provider === 'anthropic'
      ? String(tool.name)
      : String((tool.function as Record<string, unknown>).name),
  );
}

/** The tool results a request carries, in order, as text. */
function sentResults(
  provider: FakeProviderKind,
  request: RecordedRequest,
): Array<{ text: string; isError: boolean | undefined }> {
  const body = request.body as Body;
  if (provider === 'anthropic') {
    return body.messages.flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as Array<Record<string, unknown>>)
            .filter((block) => block.type === 'tool_result')
            .map((block) => ({
              text:
                typeof block.content === 'string'
                  ? block.content
                  : (block.content as Array<{ text?: string }>).map((c) => c.text ?? '').join(''),
              isError: block.is_error as boolean | undefined,
            }))
        : [],
    );
  }
  return body.messages
    .filter((message) => message.role === 'tool')
    .map((message) => ({ text: String(message.content), isError: undefined }));
}

/** A structured-output answer: Anthropic gets it as the forced tool's input, the others as JSON text. */
function structured(provider: FakeProviderKind, name: string, value: unknown): FakeTurn {
  return provider === 'anthropic'
    ? { toolCalls: [{ name, arguments: value }], usage: { inputTokens: 30, outputTokens: 8 } }
    : { text: JSON.stringify(value), usage: { inputTokens: 30, outputTokens: 8 } };
}

const usage = { inputTokens: 20, outputTokens: 5 };

describe.each(['openai', 'anthropic', 'ollama'] as const)('createAgent with %s', (provider) => {
  let fake: FakeProvider;
  let model: ChatModel;

  beforeAll(async () => {
    fake = await startFakeProvider({ provider });
    model = models[provider](fake.url);
  });
  afterEach(() => {
    expect(fake.pendingTurns).toBe(0);
    fake.reset();
  });
  afterAll(async () => {
    await fake.close();
  });

  it('direct: reads a file through the MCP filesystem server and answers, usage summed', async () => {
    fake.push(
      { toolCalls: [{ name: 'fs__read_text_file', arguments: { path: hello } }], usage },
      { text: 'The file says hello.', usage },
    );
    const result = await createAgent({ model, tools: registry.asTools() }).run(
      'What is in hello.txt?',
    );
    expect(result.text).toBe('The file says hello.');
    expect(result.finishReason).toBe('stop');
    expect(declaredTools(provider, fake.requests[0]!)).toContain('fs__read_text_file');
    expect(declaredTools(provider, fake.requests[0]!)).toContain('memory__read_graph');
    expect(sentResults(provider, fake.requests[1]!)[0]!.text).toContain('hello from toolwire');
    expect(result.usage.inputTokens).toBe(40);
    expect(result.usage.outputTokens).toBe(10);
    expect(result.transcript.provider).toBe(model.provider);
  });

  it('direct: runs parallel calls, a failing tool and invalid arguments, and sends every result back in call order', async () => {
    fake.push(
      {
        toolCalls: [
          { id: 'call_a', name: 'fs__read_text_file', arguments: { path: hello } },
          {
            id: 'call_b',
            name: 'fs__read_text_file',
            arguments: { path: join(dir, 'missing.txt') },
          },
          { id: 'call_c', name: 'calculate', arguments: { expression: 42 } },
          { id: 'call_d', name: 'memory__read_graph', arguments: {} },
        ],
      },
      { text: 'One file was missing.' },
    );
    const result = await createAgent({ model, tools: registry.asTools() }).run('Read both files');
    expect(result.text).toBe('One file was missing.');
    const results = result.steps[0]!.toolResults;
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['fs__read_text_file', false],
      ['fs__read_text_file', true],
      ['calculate', true],
      ['memory__read_graph', false],
    ]);
    expect(results[2]!.error!.category).toBe('invalidArguments');
    // What `toolwire chat --once --json` prints survives JSON unchanged.
    expect(JSON.parse(JSON.stringify(result.transcript))).toStrictEqual(
      structuredClone(result.transcript),
    );
    expect(results[2]!.error!.message).toContain('/expression');
    const sent = sentResults(provider, fake.requests[1]!);
    expect(sent).toHaveLength(4);
    expect(sent[0]!.text).toContain('hello from toolwire');
    expect(sent[1]!.text).toMatch(/missing\.txt|ENOENT|no such file/i);
    expect(sent[2]!.text).toContain('/expression');
    if (provider === 'anthropic') {
      // Anthropic marks failed results with is_error.
      expect([sent[0]!.isError, sent[1]!.isError, sent[2]!.isError]).toEqual([
        undefined,
        true,
        true,
      ]);
    }
  });

  it('direct: asks approval before a destructive MCP tool and does not run it when refused', async () => {
    const target = join(dir, `refused-${provider}.txt`);
    fake.push(
      {
        toolCalls: [
          { name: 'fs__write_file', arguments: { path: target, content: 'overwritten' } },
          { name: 'fs__list_directory', arguments: { path: dir } },
        ],
      },
      { text: 'I did not write the file.' },
    );
    const asked: string[] = [];
    const result = await createAgent({
      model,
      tools: registry.asTools(),
      approve: ({ toolCall }) => {
        asked.push(toolCall.name);
        return { approved: false, reason: 'read-only session' };
      },
    }).run('Write the file');
    expect(asked).toEqual(['fs__write_file']);
    expect(existsSync(target)).toBe(false);
    const sent = sentResults(provider, fake.requests[1]!);
    expect(sent[0]!.text).toContain('read-only session');
    expect(sent[1]!.text).toContain('hello.txt');
    expect(result.steps[0]!.approvals).toEqual([
      {
        toolCallId: expect.any(String),
        toolName: 'fs__write_file',
        approved: false,
        reason: 'read-only session',
      },
    ]);
  });

  it('direct: after the step limit makes one final call with tool use off and still answers', async () => {
    fake.push(
      { toolCalls: [{ name: 'calculate', arguments: { expression: '1+1' } }] },
      { text: 'It is 2.' },
    );
    const result = await createAgent({ model, tools: registry.asTools(), maxSteps: 1 }).run('1+1?');
    expect(result.text).toBe('It is 2.');
    expect(result.finishReason).toBe('max-steps');
    const final = fake.requests[1]!.body as Body;
    if (provider === 'openai') {
      expect(final.tool_choice).toBe('none');
      expect(declaredTools(provider, fake.requests[1]!)).toContain('calculate');
    } else if (provider === 'anthropic') {
      expect(final.tool_choice).toEqual({ type: 'none' });
      expect(declaredTools(provider, fake.requests[1]!)).toContain('calculate');
    } else {
      // Ollama ignores tool_choice: the final call goes without tools.
      expect(final.tools ?? []).toEqual([]);
    }
    expect(sentResults(provider, fake.requests[1]!)[0]!.text).toContain('2');
  });

  it("direct: sends a rate-limited call again after the provider's retry-after", async () => {
    fake.push(
      { error: { status: 429, headers: { 'retry-after-ms': '5' } } },
      { text: 'Answered on the second try.' },
    );
    const result = await createAgent({ model, tools: registry.asTools() }).run('Hello?');
    expect(result.text).toBe('Answered on the second try.');
    expect(fake.requests).toHaveLength(2);
    expect(result.steps[0]!.retries).toEqual([
      expect.objectContaining({ name: 'RateLimitError', code: 'rate_limited' }),
    ]);
  });

  it('direct: aborts mid-stream with CancelledError', async () => {
    fake.push({
      // Enough chunks for every wire format to have sent text before it stalls.
      stallAfter: 6,
      turn: { text: 'This answer will stall part of the way through the stream.' },
    });
    const controller = new AbortController();
    const events: AgentEvent['type'][] = [];
    const run = (async () => {
      const agent = createAgent({ model, tools: registry.asTools() });
      for await (const event of agent.stream('Tell me a story', { signal: controller.signal })) {
        events.push(event.type);
        if (event.type === 'text-delta') controller.abort();
      }
    })();
    await expect(run).rejects.toBeInstanceOf(CancelledError);
    expect(events).toContain('text-delta');
    expect(events).not.toContain('finish');
  });

  it('gateway: lists a server through its gateway tool, then executes one of its tools', async () => {
    fake.push(
      { toolCalls: [{ name: 'fs', arguments: { action: 'list' } }] },
      {
        toolCalls: [
          {
            name: 'fs',
            arguments: { action: 'execute', tool: 'read_text_file', arguments: { path: hello } },
          },
        ],
      },
      { text: 'It says hello.' },
    );
    const result = await createAgent({
      model,
      mode: 'gateway',
      tools: ({ mode }) => registry.asTools({ mode: mode === 'gateway' ? 'gateway' : 'tools' }),
    }).run('What is in hello.txt?');
    expect(result.text).toBe('It says hello.');
    expect(declaredTools(provider, fake.requests[0]!)).toEqual([
      'hash',
      'time',
      'calculate',
      'search',
      'fs',
      'memory',
    ]);
    expect(sentResults(provider, fake.requests[1]!)[0]!.text).toContain('read_text_file');
    expect(sentResults(provider, fake.requests[2]!)[1]!.text).toContain('hello from toolwire');
  });

  it('code: runs TypeScript through execute_code that calls an MCP tool', async () => {
    const code = `const text = await fs__read_text_file({ path: ${JSON.stringify(hello)} });\nreturn text;`;
    fake.push({ toolCalls: [{ name: 'execute_code', arguments: { code } }] }, { text: 'Done.' });
    const result = await createAgent({ model, mode: 'code', tools: codeMode.tools }).run(
      'Read hello.txt with code',
    );
    expect(result.text).toBe('Done.');
    expect(declaredTools(provider, fake.requests[0]!)).toEqual(['execute_code', 'calculate']);
    const sent = sentResults(provider, fake.requests[1]!)[0]!;
    expect(sent.text).toContain('hello from toolwire');
    expect(result.steps[0]!.toolResults[0]!.isError).toBe(false);
  });

  it('code: finds an MCP tool with search() and calls it in the same execute_code call, with a typed result', async () => {
    const code = [
      "const [hit] = await search('read the contents of a text file', { limit: 1 });",
      'const read = (tools as unknown as Record<string, (input: unknown) => Promise<{ content: string }>>)[hit!.identifier]!;',
      `console.log('using', hit!.name);`,
      `return (await read({ path: ${JSON.stringify(hello)} })).content;`,
    ].join('\n');
    fake.push({ toolCalls: [{ name: 'execute_code', arguments: { code } }] }, { text: 'Done.' });
    const result = await createAgent({ model, mode: 'code', tools: codeMode.tools }).run(
      'What does hello.txt say?',
    );
    expect(result.text).toBe('Done.');
    const toolResult = result.steps[0]!.toolResults[0]!;
    expect(toolResult.isError).toBe(false);
    expect(toolResult.structuredContent).toMatchObject({
      ok: true,
      output: 'using fs__read_text_file',
      returned: 'hello from toolwire\n',
      toolCalls: [{ name: 'fs__read_text_file', outcome: 'ok' }],
    });
    expect(sentResults(provider, fake.requests[1]!)[0]!.text).toContain('hello from toolwire');
  });

  it('staged: selects, calls only the selected tools, executes and interprets through structured output', async () => {
    fake.push(
      structured(provider, 'tool_selection', {
        reasoning: 'The user wants a file read.',
        selected_tools: ['fs__read_text_file'],
      }),
      { toolCalls: [{ name: 'fs__read_text_file', arguments: { path: hello } }] },
      structured(provider, 'final_response', { content: 'hello.txt says hello from toolwire.' }),
    );
    const result = await createAgent({
      model,
      mode: 'staged',
      tools: () => registry.asTools(),
    }).run('What is in hello.txt?');
    expect(result.text).toBe('hello.txt says hello from toolwire.');
    expect(result.steps.map((s) => s.kind)).toEqual([
      'discovery',
      'selection',
      'function-calling',
      'execution',
      'interpretation',
    ]);
    const [selection, calling, interpretation] = fake.requests.map((r) => r.body as Body);
    if (provider === 'openai') {
      expect(selection!.response_format).toMatchObject({ type: 'json_schema' });
      expect(calling!.tool_choice).toBe('required');
    } else if (provider === 'anthropic') {
      expect(selection!.tool_choice).toMatchObject({ type: 'tool', name: 'tool_selection' });
      expect(calling!.tool_choice).toMatchObject({ type: 'any' });
    } else {
      expect(selection!.format).toMatchObject({ type: 'object' });
    }
    expect(declaredTools(provider, fake.requests[1]!)).toEqual(['fs__read_text_file']);
    expect(JSON.parse(JSON.stringify(result.transcript))).toStrictEqual(
      structuredClone(result.transcript),
    );
    expect(sentResults(provider, fake.requests[2]!)[0]!.text).toContain('hello from toolwire');
    void interpretation;
  });

  it('staged: falls back to a direct answer when selection fails at the provider', async () => {
    // 400 is not retryable: the stage fails at once.
    fake.push({ error: { status: 400 } }, { text: 'A direct answer.' });
    const result = await createAgent({ model, mode: 'staged', tools: registry.asTools() }).run(
      'Hello?',
    );
    expect(result.text).toBe('A direct answer.');
    expect(result.steps[1]!.error).not.toBeNull();
    expect(declaredTools(provider, fake.requests[1]!)).toEqual([]);
  });
});
