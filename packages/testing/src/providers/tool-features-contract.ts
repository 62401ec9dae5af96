import {
  TEXT_INPUT_SCHEMA,
  collectStream,
  textResult,
  toolCallArgumentsObject,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type ChatStreamPart,
  type Message,
  type RemoteMcpServer,
  type ToolSpec,
} from '@toolwire/schema';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './fake-provider.js';
import type { FakeProviderKind } from './fake-turn.js';
import { wireFixture, wireFixtureJson } from './wire-fixtures.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- these read deep into recorded request bodies */

/** The wire formats whose request bodies the tool-features contract knows exactly. */
export type ToolFeaturesWire =
  'openai-chat' | 'xai-chat' | 'openai-responses' | 'anthropic' | 'ollama' | 'google';

export interface ToolFeaturesContractOptions {
  /** Shown in the describe block. */
  name: string;
  wire: ToolFeaturesWire;
  /** Makes the model under test, pointed at the fake server's origin (see `runChatModelContract`). */
  createModel: (baseUrl: string) => ChatModel;
}

const FAKE_KIND: Record<ToolFeaturesWire, FakeProviderKind> = {
  'openai-chat': 'openai',
  'xai-chat': 'openai',
  'openai-responses': 'openai-responses',
  anthropic: 'anthropic',
  ollama: 'ollama',
  google: 'google',
};

/** Providers with their own tool search (the rest get `ClientToolSearch`). */
const NATIVE_SEARCH = new Set<ToolFeaturesWire>(['openai-responses', 'anthropic']);
/** Providers that run remote MCP servers. */
const NATIVE_MCP = new Set<ToolFeaturesWire>(['openai-responses', 'anthropic']);

/** The tools of the contract: one of each feature. */
export const FEATURE_TOOLS: ToolSpec[] = [
  {
    name: 'get_weather',
    description: 'Current weather for a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    inputExamples: [{ city: 'Paris' }, { city: 'São Paulo' }],
  },
  {
    name: 'run_sql',
    description: 'Run a read-only SQL query',
    inputSchema: TEXT_INPUT_SCHEMA,
    inputFormat: { type: 'grammar', syntax: 'regex', definition: '^SELECT .+ FROM [a-z_]+$' },
  },
  {
    name: 'list_orders',
    description: 'List the orders of a customer',
    inputSchema: {
      type: 'object',
      properties: { customer: { type: 'string' } },
      required: ['customer'],
    },
    allowedCallers: ['direct', 'programmatic'],
  },
  {
    name: 'send_email',
    description: 'Send an email to a person',
    inputSchema: {
      type: 'object',
      properties: { to: { type: 'string' }, subject: { type: 'string' } },
      required: ['to', 'subject'],
    },
    deferred: true,
  },
];

const SYSTEM: Message = { role: 'system', content: 'Be brief.' };
const USER: Message = { role: 'user', content: 'Email Ada that it rains in Paris.' };

/** The request that carries every feature at once. */
export const FEATURES_REQUEST: ChatRequest = {
  messages: [SYSTEM, USER],
  tools: FEATURE_TOOLS,
  toolChoice: { type: 'allowed', toolNames: ['get_weather', 'run_sql', 'send_email'] },
};

export const CONTRACT_MCP_SERVER: RemoteMcpServer = {
  name: 'deepwiki',
  url: 'https://mcp.deepwiki.com/mcp',
  allowedTools: ['ask_question'],
  requireApproval: 'never',
};

/** The conversation messages of a request body, whatever the wire calls them. */
function messagesOf(wire: ToolFeaturesWire, body: any): unknown[] {
  if (wire === 'google') return body.contents;
  if (wire === 'openai-responses') return body.input;
  return body.messages;
}

function toolsOf(body: any): unknown {
  return body.tools;
}

function continuation(response: ChatResponse, results: Message[]): Message[] {
  return [
    SYSTEM,
    USER,
    {
      role: 'assistant',
      content: response.text,
      toolCalls: response.toolCalls,
      ...(response.providerMetadata ? { providerMetadata: response.providerMetadata } : {}),
    },
    ...results,
  ];
}

/**
 * The tool-features contract: the exact request body each provider gets for deferred tools,
 * input examples, free-text tools, programmatic callers and an allowed tool set (fixtures written
 * from the providers' documentation, sources in `fixtures/README.md`); the tool-search round trip,
 * native or emulated, with the prompt prefix byte-stable from one request to the next; remote MCP
 * servers where the provider runs them, refused before sending where it does not.
 */
export function runToolFeaturesContract(options: ToolFeaturesContractOptions): void {
  const { wire } = options;
  describe(`${options.name} (tool-features contract, ${wire} wire)`, () => {
    let fake: FakeProvider;
    let model: ChatModel;

    beforeAll(async () => {
      fake = await startFakeProvider({ provider: FAKE_KIND[wire] });
      model = options.createModel(fake.url);
    });
    afterAll(async () => {
      await fake?.close();
    });
    beforeEach(() => {
      fake.reset();
    });

    it('sends deferred tools, input examples, a free-text tool, programmatic callers and an allowed set as the docs show them', async () => {
      fake.push({ text: 'Checking.' });
      await model.generate(FEATURES_REQUEST);
      expect(fake.requests).toHaveLength(1);
      expect(fake.lastBody()).toEqual(wireFixtureJson(`${wire}-tool-features-request.json`));
    });

    if (NATIVE_SEARCH.has(wire)) {
      it("reads the provider's tool search and replays it exactly on the next turn", async () => {
        fake.push({ raw: wireFixture(`${wire}-tool-search-response.json`) }, { text: 'Sent.' });
        const first = await model.generate(FEATURES_REQUEST);
        expect(first.toolCalls.map((call) => call.name)).toEqual(['send_email']);
        expect(first.providerToolCalls).toEqual([
          expect.objectContaining({ result: expect.objectContaining({ isError: false }) }),
        ]);
        const call = first.toolCalls[0]!;
        await model.generate({
          ...FEATURES_REQUEST,
          messages: continuation(first, [
            { role: 'tool', results: [textResult(call.id, call.name, 'sent')] },
          ]),
        });
        expect(fake.requests[1]!.body).toEqual(
          wireFixtureJson(`${wire}-tool-search-followup-request.json`),
        );
        expectStablePrefix(wire, fake.requests[0]!.body, fake.requests[1]!.body);
      });

      it('streams the same search and call as the JSON answer gives, the search as a provider-tool-call part', async () => {
        fake.push(
          { raw: wireFixture(`${wire}-tool-search-response.json`) },
          { raw: wireFixture(`${wire}-tool-search-stream.sse`) },
        );
        const generated = await model.generate(FEATURES_REQUEST);
        const parts: ChatStreamPart[] = [];
        for await (const part of model.stream(FEATURES_REQUEST)) parts.push(part);
        const streamed = (parts.at(-1) as Extract<ChatStreamPart, { type: 'finish' }>).response;
        expect(streamed.toolCalls).toEqual(generated.toolCalls);
        expect(streamed.providerToolCalls).toEqual(generated.providerToolCalls);
        expect(streamed.text).toBe(generated.text);
        expect(parts.filter((part) => part.type === 'provider-tool-call')).toEqual([
          { type: 'provider-tool-call', call: generated.providerToolCalls![0] },
        ]);
        // What the next turn replays is the same, however the answer came.
        const history = (response: ChatResponse) => continuation(response, []);
        expect(JSON.stringify(history(streamed))).toBe(JSON.stringify(history(generated)));
      });
    } else {
      for (const stream of [false, true]) {
        it(`finds a deferred tool with the emulated search and keeps the prompt prefix byte-stable (${stream ? 'streamed' : 'generate'})`, async () => {
          fake.push(
            { toolCalls: [{ id: 'call_s1', name: 'search_tools', arguments: { query: 'email' } }] },
            {
              toolCalls: [
                {
                  id: 'call_c1',
                  name: 'call_tool',
                  arguments: {
                    name: 'send_email',
                    arguments: JSON.stringify({ to: 'ada', subject: 'Rain' }),
                  },
                },
              ],
            },
            { text: 'Sent.' },
          );
          const first = stream
            ? await collectStream(model.stream(FEATURES_REQUEST))
            : await model.generate(FEATURES_REQUEST);
          expect(first.toolCalls).toEqual([expect.objectContaining({ name: 'send_email' })]);
          expect(toolCallArgumentsObject(first.toolCalls[0]!)).toEqual({
            to: 'ada',
            subject: 'Rain',
          });
          expect(first.providerToolCalls).toEqual([
            expect.objectContaining({ name: 'search_tools' }),
          ]);
          const found = JSON.parse(first.providerToolCalls![0]!.result!.text);
          expect(found.tools[0]).toMatchObject({ name: 'send_email' });
          const call = first.toolCalls[0]!;
          const history = JSON.parse(
            JSON.stringify(
              continuation(first, [
                { role: 'tool', results: [textResult(call.id, call.name, 'sent')] },
              ]),
            ),
          ) as Message[];
          await model.generate({ ...FEATURES_REQUEST, messages: history });
          expect(fake.requests).toHaveLength(3);
          const [one, two, three] = fake.requests.map((request) => request.body);
          expectStablePrefix(wire, one, two);
          expectStablePrefix(wire, two, three);
        });
      }
    }

    if (NATIVE_MCP.has(wire)) {
      it('passes remote MCP servers through and reads the calls the provider ran', async () => {
        fake.push({ raw: wireFixture(`${wire}-mcp-response.json`) });
        const response = await model.generate({
          messages: [USER],
          mcpServers: [CONTRACT_MCP_SERVER],
        });
        expect(fake.lastBody()).toEqual(wireFixtureJson(`${wire}-mcp-request.json`));
        expect(response.providerToolCalls).toEqual([
          expect.objectContaining({
            name: 'ask_question',
            server: 'deepwiki',
            result: expect.objectContaining({ isError: false }),
          }),
        ]);
      });
      if (wire === 'openai-responses') {
        it('surfaces an approval request and sends the answer back with the items it came with', async () => {
          fake.push(
            { raw: wireFixture('openai-responses-mcp-approval-response.json') },
            {
              text: 'Done.',
            },
          );
          const server: RemoteMcpServer = { ...CONTRACT_MCP_SERVER, requireApproval: 'always' };
          const question: Message = { role: 'user', content: 'Which transports does MCP define?' };
          const first = await model.generate({ messages: [question], mcpServers: [server] });
          expect(fake.lastBody()).toEqual(
            wireFixtureJson('openai-responses-mcp-approval-request.json'),
          );
          expect(first.finishReason).toBe('tool-calls');
          expect(first.toolCalls).toEqual([]);
          const [request] = first.providerToolCalls ?? [];
          expect(request).toEqual({
            id: 'mcpr_68c2b3f8e9d48193',
            name: 'ask_question',
            server: 'deepwiki',
            arguments: expect.stringContaining('transports'),
            approvalRequestId: 'mcpr_68c2b3f8e9d48193',
          });
          await model.generate({
            messages: JSON.parse(
              JSON.stringify([
                question,
                {
                  role: 'assistant',
                  content: first.text,
                  providerMetadata: first.providerMetadata,
                },
                {
                  role: 'tool',
                  results: [],
                  approvals: [{ approvalRequestId: request!.approvalRequestId!, approved: true }],
                },
              ]),
            ),
            mcpServers: [server],
          });
          expect(fake.lastBody()).toEqual(
            wireFixtureJson('openai-responses-mcp-approval-followup-request.json'),
          );
        });
      } else {
        it('refuses a server that requires approval: the connector cannot ask', async () => {
          await expect(
            model.generate({
              messages: [USER],
              mcpServers: [{ ...CONTRACT_MCP_SERVER, requireApproval: 'always' }],
            }),
          ).rejects.toMatchObject({ name: 'UnsupportedFeatureError' });
          expect(fake.requests).toHaveLength(0);
        });
      }
    } else {
      it('refuses remote MCP servers before sending, naming the feature', async () => {
        await expect(
          model.generate({ messages: [USER], mcpServers: [CONTRACT_MCP_SERVER] }),
        ).rejects.toMatchObject({ name: 'UnsupportedFeatureError', feature: 'mcpServers' });
        expect(fake.requests).toHaveLength(0);
      });
    }

    if (wire === 'anthropic') {
      it('continues a programmatic call in its container, the caller kept', async () => {
        fake.push({ raw: wireFixture('anthropic-programmatic-response.json') }, { text: 'Done.' });
        const first = await model.generate(FEATURES_REQUEST);
        expect(first.toolCalls).toEqual([
          {
            id: 'toolu_01KqzEjJmBcRgYy8TsAVdH7p',
            name: 'list_orders',
            arguments: { customer: 'ada' },
          },
        ]);
        expect(first.providerToolCalls).toEqual([
          expect.objectContaining({
            name: 'code_execution',
            id: 'srvtoolu_01W5bqVbMJpX3mZ9tGv1hE2K',
          }),
        ]);
        const call = first.toolCalls[0]!;
        await model.generate({
          ...FEATURES_REQUEST,
          messages: continuation(first, [
            { role: 'tool', results: [textResult(call.id, call.name, '[]')] },
          ]),
        });
        expect(fake.lastBody()).toEqual(
          wireFixtureJson('anthropic-programmatic-followup-request.json'),
        );
      });
    }

    it('returns a free-text tool call with its text as `input`', async () => {
      const custom = wire === 'openai-chat' || wire === 'openai-responses';
      fake.push(
        custom
          ? { raw: wireFixture(`${wire}-custom-tool-response.json`) }
          : {
              toolCalls: [
                { id: 'call_q', name: 'run_sql', arguments: { input: 'SELECT id FROM orders' } },
              ],
            },
      );
      const response = await model.generate(FEATURES_REQUEST);
      expect(response.toolCalls).toHaveLength(1);
      expect(response.toolCalls[0]!.name).toBe('run_sql');
      expect(toolCallArgumentsObject(response.toolCalls[0]!)).toEqual({
        input: 'SELECT id FROM orders',
      });
    });
  });
}

/** The later request starts with exactly the earlier one's tools and conversation. */
function expectStablePrefix(wire: ToolFeaturesWire, before: any, after: any): void {
  expect(JSON.stringify(toolsOf(after)), 'the tools are sent byte for byte as before').toBe(
    JSON.stringify(toolsOf(before)),
  );
  const earlier = messagesOf(wire, before);
  const later = messagesOf(wire, after);
  expect(
    JSON.stringify(later.slice(0, earlier.length)),
    'the conversation so far is sent byte for byte as before',
  ).toBe(JSON.stringify(earlier));
}
