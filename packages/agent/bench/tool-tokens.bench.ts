// pnpm bench (second part): prompt tokens per turn with 500 tools, four ways: every tool declared
// (direct), deferred with the provider's own tool search (Anthropic; OpenAI Responses with one
// namespace per server), deferred with the emulated search (ClientToolSearch, on Chat
// Completions), and code mode's one execute_code tool. Each way is a real agent run through the
// real adapter against the fake provider server, three user turns (create an issue, assign it,
// post to Slack); every request body the adapter sent is counted with a real tokenizer
// (o200k_base, js-tiktoken): the tool definitions the model sees plus the conversation. For the
// native searches, deferred tools are not in the prompt until a search loads them (Anthropic: a
// `tool_reference` expands to the tool's definition; Responses: a namespace shows only its name
// and description, a loaded tool its definition), as the providers document. Printed, not asserted.
import { createAnthropic } from '@toolwire/anthropic';
import { createCodeMode } from '@toolwire/codemode';
import { createOpenAI } from '@toolwire/openai';
import { ToolSearchIndex, type AnyTool, type ChatModel, type Message } from '@toolwire/schema';
import {
  startFakeProvider,
  type FakeProviderKind,
  type FakeTurn,
} from '@toolwire/testing/providers';
import { getEncoding } from 'js-tiktoken';
import { generateTools } from '../../codemode/bench/generated-tools.js';
import { createAgent } from '../src/index.js';

const encoding = getEncoding('o200k_base');
const tokens = (value: unknown) => encoding.encode(JSON.stringify(value)).length;

const catalog = generateTools(500);
const execute = async (args: unknown) => ({ ok: true, id: 42, echo: args });
const direct: AnyTool[] = catalog.map((tool) => ({
  name: tool.name,
  description: tool.description ?? '',
  inputSchema: tool.inputSchema,
  execute,
}));
const deferred: AnyTool[] = direct.map((tool) => ({ ...tool, deferred: true }));
const serverOf = (name: string) => name.split('__')[0]!;

const prompts = [
  'Open an issue in acme/api titled "Login fails on Safari".',
  'Assign it to ada.',
  'Tell #eng on Slack that the issue is open.',
];
const plan: Array<{ tool: string; args: Record<string, unknown>; query: string }> = [
  {
    tool: 'github__create_issue',
    args: { owner: 'acme', repo: 'api', title: 'Login fails on Safari' },
    query: 'create github issue',
  },
  {
    tool: 'github__update_issue',
    args: { owner: 'acme', repo: 'api', issue_number: '42', assignees: ['ada'] },
    query: 'update github issue assignees',
  },
  {
    tool: 'slack__post_message',
    args: { channel: '#eng', text: 'Issue #42 is open.' },
    query: 'post slack message',
  },
];
if (plan.some((step) => !catalog.some((tool) => tool.name === step.tool)))
  throw new Error('a planned tool is not in the generated set');
const definitionOf = (name: string) => direct.find((tool) => tool.name === name)!;
// What a search finds: the same three matches for every way, from the one BM25 index (the planned
// tool first), so the native searches load as many definitions as the emulated one returns.
const index = new ToolSearchIndex(direct);
const matchesOf = (turn: number) =>
  [
    plan[turn]!.tool,
    ...index
      .search(plan[turn]!.query, { limit: 3 })
      .map((match) => match.tool.name)
      .filter((name) => name !== plan[turn]!.tool),
  ].slice(0, 3);

/** The scripted answers of one way: per user turn, the model's requests. */
type Script = (turn: number) => FakeTurn[];

const callThenAnswer: Script = (turn) => [
  { toolCalls: [{ id: `call_${turn}`, name: plan[turn]!.tool, arguments: plan[turn]!.args }] },
  { text: `Done (${turn + 1}).` },
];
const emulated: Script = (turn) => [
  {
    toolCalls: [
      { id: `search_${turn}`, name: 'search_tools', arguments: { query: plan[turn]!.query } },
    ],
  },
  {
    toolCalls: [
      {
        id: `call_${turn}`,
        name: 'call_tool',
        arguments: { name: plan[turn]!.tool, arguments: JSON.stringify(plan[turn]!.args) },
      },
    ],
  },
  { text: `Done (${turn + 1}).` },
];
const codeMode: Script = (turn) => [
  {
    toolCalls: [
      {
        id: `code_${turn}`,
        name: 'execute_code',
        arguments: {
          code: `return await tools.${plan[turn]!.tool}(${JSON.stringify(plan[turn]!.args)});`,
        },
      },
    ],
  },
  { text: `Done (${turn + 1}).` },
];
const json = (body: unknown): FakeTurn => ({
  raw: { contentType: 'application/json', body: JSON.stringify(body) },
});
const anthropicNative: Script = (turn) => [
  json({
    id: `msg_${turn}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-6',
    content: [
      {
        type: 'server_tool_use',
        id: `srvtoolu_${turn}`,
        name: 'tool_search_tool_bm25',
        input: { query: plan[turn]!.query },
      },
      {
        type: 'tool_search_tool_result',
        tool_use_id: `srvtoolu_${turn}`,
        content: {
          type: 'tool_search_tool_search_result',
          tool_references: matchesOf(turn).map((name) => ({
            type: 'tool_reference',
            tool_name: name,
          })),
        },
      },
      { type: 'tool_use', id: `toolu_${turn}`, name: plan[turn]!.tool, input: plan[turn]!.args },
    ],
    stop_reason: 'tool_use',
    usage: { input_tokens: 1, output_tokens: 1 },
  }),
  { text: `Done (${turn + 1}).` },
];
const responsesNative: Script = (turn) => {
  const tool = definitionOf(plan[turn]!.tool);
  const loaded = matchesOf(turn).map(definitionOf);
  return [
    json({
      id: `resp_${turn}`,
      status: 'completed',
      model: 'gpt-5.4',
      output: [
        {
          id: `tsc_${turn}`,
          type: 'tool_search_call',
          call_id: null,
          execution: 'server',
          arguments: { query: plan[turn]!.query },
          status: 'completed',
        },
        {
          id: `tso_${turn}`,
          type: 'tool_search_output',
          call_id: null,
          execution: 'server',
          status: 'completed',
          tools: loaded.map((match) => ({
            type: 'namespace',
            name: serverOf(match.name),
            description: `${serverOf(match.name)} tools`,
            tools: [
              {
                type: 'function',
                name: match.name,
                description: match.description,
                parameters: match.inputSchema,
                defer_loading: true,
              },
            ],
          })),
        },
        {
          id: `fc_${turn}`,
          type: 'function_call',
          call_id: `call_${turn}`,
          name: tool.name,
          namespace: serverOf(tool.name),
          arguments: JSON.stringify(plan[turn]!.args),
          status: 'completed',
        },
      ],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    }),
    { text: `Done (${turn + 1}).` },
  ];
};

/* eslint-disable @typescript-eslint/no-explicit-any -- these read deep into recorded request bodies */

/** What the model sees of a request body, by wire format. */
type Visible = (body: any) => { tools: unknown; conversation: unknown; loaded: unknown[] };
const chatVisible: Visible = (body) => ({
  tools: body.tools ?? [],
  conversation: body.messages,
  loaded: [],
});
const anthropicVisible: Visible = (body) => {
  const references = JSON.stringify(body.messages).match(/"tool_name":"[^"]+"/g) ?? [];
  return {
    tools: (body.tools ?? []).filter((tool: any) => !tool.defer_loading),
    conversation: [body.system, body.messages],
    loaded: references.map((ref) => {
      const name = ref.slice('"tool_name":"'.length, -1);
      return (body.tools ?? []).find((tool: any) => tool.name === name);
    }),
  };
};
const responsesVisible: Visible = (body) => ({
  tools: (body.tools ?? []).map((tool: any) =>
    tool.type === 'namespace'
      ? { type: 'namespace', name: tool.name, description: tool.description }
      : tool,
  ),
  conversation: body.input,
  loaded: [],
});

interface Way {
  label: string;
  provider: FakeProviderKind;
  model: (url: string) => ChatModel;
  tools: () => readonly AnyTool[];
  script: Script;
  visible: Visible;
}

const ways: Way[] = [
  {
    label: 'direct: 500 tools declared (Chat Completions)',
    provider: 'openai',
    model: (url) =>
      createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', provider: 'openai' })('gpt-5.4'),
    tools: () => direct,
    script: callThenAnswer,
    visible: chatVisible,
  },
  {
    label: 'deferred, native: Anthropic tool search (BM25)',
    provider: 'anthropic',
    model: (url) => createAnthropic({ apiKey: 'k', baseURL: url })('claude-sonnet-4-6'),
    tools: () => deferred,
    script: anthropicNative,
    visible: anthropicVisible,
  },
  {
    label: 'deferred, native: OpenAI Responses tool_search, a namespace per server',
    provider: 'openai-responses',
    model: (url) =>
      createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', provider: 'openai' }).responses('gpt-5.4', {
        toolNamespace: (tool) => ({
          name: serverOf(tool.name),
          description: `${serverOf(tool.name)} tools`,
        }),
      }),
    tools: () => deferred,
    script: responsesNative,
    visible: responsesVisible,
  },
  {
    label: 'deferred, emulated: search_tools + call_tool (Chat Completions)',
    provider: 'openai',
    model: (url) =>
      createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', provider: 'openai' })('gpt-5.4'),
    tools: () => deferred,
    script: emulated,
    visible: chatVisible,
  },
  {
    label: 'code mode: execute_code (Chat Completions)',
    provider: 'openai',
    model: (url) =>
      createOpenAI({ baseURL: `${url}/v1`, apiKey: 'k', provider: 'openai' })('gpt-5.4'),
    tools: () => {
      const mode = createCodeMode({ source: direct, typecheck: 'off' });
      return mode.tools.map((tool) => ({ ...tool, execute }));
    },
    script: codeMode,
    visible: chatVisible,
  },
];

interface Measured {
  label: string;
  /** Per user turn: prompt tokens of each request. */
  turns: number[][];
  prefixStable: boolean;
}

async function measure(way: Way): Promise<Measured> {
  const fake = await startFakeProvider({ provider: way.provider });
  try {
    const agent = createAgent({
      model: way.model(fake.url),
      tools: way.tools(),
      system: 'You are a helpful assistant.',
    });
    const turns: number[][] = [];
    let messages: Message[] = [];
    for (const [turn, prompt] of prompts.entries()) {
      fake.push(...way.script(turn));
      const before = fake.requests.length;
      const result = await agent.run([...messages, { role: 'user', content: prompt }]);
      messages = result.messages;
      turns.push(
        fake.requests.slice(before).map((request) => {
          const seen = way.visible(request.body);
          return (
            tokens(seen.tools) +
            tokens(seen.conversation) +
            seen.loaded.reduce<number>((sum, tool) => sum + tokens(tool), 0)
          );
        }),
      );
    }
    // The prompt prefix: each request starts with the tools and the whole conversation before it.
    let prefixStable = true;
    for (let i = 1; i < fake.requests.length; i++) {
      const [a, b] = [way.visible(fake.requests[i - 1]!.body), way.visible(fake.requests[i]!.body)];
      const earlier = JSON.stringify(a.conversation).slice(0, -2);
      if (
        JSON.stringify(a.tools) !== JSON.stringify(b.tools) ||
        !JSON.stringify(b.conversation).startsWith(earlier)
      )
        prefixStable = false;
    }
    return { label: way.label, turns, prefixStable };
  } finally {
    await fake.close();
  }
}

const results: Measured[] = [];
for (const way of ways) results.push(await measure(way));
const [baseline] = results;
const firstOf = (m: Measured, turn: number) => m.turns[turn]![0]!;
const sumOf = (m: Measured, turn: number) => m.turns[turn]!.reduce((a, b) => a + b, 0);

console.log(
  `\n# Prompt tokens per turn, ${catalog.length} tools (o200k_base via js-tiktoken; load: ${(await import('node:os')).loadavg()[0]!.toFixed(1)})\n`,
);
console.log('first request of each user turn, % of direct:');
console.table(
  results.map((m) => ({
    way: m.label,
    ...Object.fromEntries(
      prompts.map((_, turn) => [
        `turn ${turn + 1}`,
        `${firstOf(m, turn)} (${((firstOf(m, turn) / firstOf(baseline!, turn)) * 100).toFixed(1)}%)`,
      ]),
    ),
    'prefix stable': m.prefixStable ? 'yes' : 'NO',
  })),
);
console.log('every request of each user turn, summed (search rounds included), % of direct:');
console.table(
  results.map((m) => ({
    way: m.label,
    ...Object.fromEntries(
      prompts.map((_, turn) => [
        `turn ${turn + 1}`,
        `${sumOf(m, turn)} in ${m.turns[turn]!.length} req (${((sumOf(m, turn) / sumOf(baseline!, turn)) * 100).toFixed(1)}%)`,
      ]),
    ),
  })),
);
// The goal is per model request ("per turn" of the model): no request from the second user turn
// on may cost more than 5% of the direct way's requests. Summed over a user turn (the table
// above), the emulated search also pays for its extra request.
for (const m of results.slice(1)) {
  if (!m.label.startsWith('deferred')) continue;
  const worst = Math.max(
    ...m.turns
      .slice(1)
      .flatMap((requests, i) => requests.map((count) => count / firstOf(baseline!, i + 1))),
  );
  console.log(
    `goal ${m.label}: every request ≤ 5% of direct from the second turn on: ${(worst * 100).toFixed(1)}% at most, ${worst <= 0.05 ? 'met' : 'NOT MET'}; prompt prefix ${m.prefixStable ? 'unchanged' : 'CHANGED'} between requests`,
  );
}
