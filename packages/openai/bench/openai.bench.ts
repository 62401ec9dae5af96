// pnpm bench: request building per call and stream accumulation per 1,000 parts, each with a
// baseline measured in the same run (JSON.stringify of the built body, which the SDK does anyway;
// JSON.parse of the 1,000 chunks, which the SDK's SSE decoder does anyway).
import { textResult, type ChatRequest, type Message, type ToolSpec } from '@toolwire/schema';
import { Bench } from 'tinybench';
import {
  buildOpenAIRequest,
  buildOpenAIResponsesRequest,
  OpenAIResponsesStreamAccumulator,
  OpenAIStreamAccumulator,
  type OpenAIRequestSettings,
  type OpenAIWireChunk,
  type ResponsesStreamEvent,
} from '../src/internal.js';
import { benchRows } from '@toolwire/bench-kit';

const tools: ToolSpec[] = Array.from({ length: 10 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i}, which does something useful with a path and options`,
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'File path' },
      recursive: { type: 'boolean' },
      depth: { type: 'integer', minimum: 0, maximum: 10 },
      mode: { type: 'string', enum: ['read', 'write', 'append'] },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['path'],
  },
}));

const messages: Message[] = [{ role: 'system', content: 'You are a careful assistant.' }];
for (let turn = 0; turn < 6; turn++) {
  messages.push({
    role: 'user',
    content: `Question ${turn}: please look at /tmp/file-${turn}.txt`,
  });
  messages.push({
    role: 'assistant',
    content: 'Let me look.',
    toolCalls: [
      { id: `call_${turn}`, name: 'tool_1', arguments: `{"path":"/tmp/file-${turn}.txt"}` },
    ],
  });
  messages.push({ role: 'tool', results: [textResult(`call_${turn}`, 'tool_1', 'x'.repeat(400))] });
}
const request: ChatRequest = {
  messages,
  tools,
  toolChoice: 'auto',
  parallelToolCalls: true,
  maxOutputTokens: 1000,
};

const settings: OpenAIRequestSettings = {
  modelId: 'gpt-5-mini',
  providerName: 'openai',
  schemaDialect: 'openai',
  strictTools: false,
  strictResponseFormat: true,
  maxTokensField: 'max_completion_tokens',
  nativeToolFeatures: true,
  streamUsage: true,
  imageToolResults: 'user-message',
};
const builtBody = buildOpenAIRequest(request, settings, true).body;

// 1,000 parts: 600 text deltas, then 4 tool calls whose arguments arrive in 100 fragments each.
const chunks: OpenAIWireChunk[] = [];
for (let i = 0; i < 600; i++)
  chunks.push({
    id: 'chatcmpl-1',
    model: 'gpt-5-mini',
    choices: [{ index: 0, delta: { content: 'word ' } }],
  });
for (let call = 0; call < 4; call++) {
  chunks.push({
    choices: [
      {
        index: 0,
        delta: {
          tool_calls: [
            {
              index: call,
              id: `call_${call}`,
              type: 'function',
              function: { name: 'tool_1', arguments: '' },
            },
          ],
        },
      },
    ],
  });
  const args = JSON.stringify({
    path: `/tmp/${'d'.repeat(260)}/${call}.txt`,
    recursive: true,
    depth: 3,
  }).padEnd(300, ' ');
  for (let j = 0; j < 99; j++)
    chunks.push({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index: call, function: { arguments: args.slice(j * 3, j * 3 + 3) } }],
          },
        },
      ],
    });
}
chunks.push({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] });
chunks.push({
  choices: [],
  usage: { prompt_tokens: 1000, completion_tokens: 400, total_tokens: 1400 },
});
const chunkTexts = chunks.map((chunk) => JSON.stringify(chunk));

// The same answer as Responses events: 600 output_text deltas, 4 function calls of 99 argument
// deltas each, then response.completed.
const events: ResponsesStreamEvent[] = [
  { type: 'response.created', response: { id: 'resp_1', model: 'gpt-5-mini', output: [] } },
];
for (let i = 0; i < 600; i++)
  events.push({
    type: 'response.output_text.delta',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    delta: 'word ',
  });
for (let call = 0; call < 4; call++) {
  const itemId = `fc_${call}`;
  events.push({
    type: 'response.output_item.added',
    output_index: call + 1,
    item: {
      type: 'function_call',
      id: itemId,
      call_id: `call_${call}`,
      name: 'tool_1',
      arguments: '',
    },
  });
  const args = JSON.stringify({
    path: `/tmp/${'d'.repeat(260)}/${call}.txt`,
    recursive: true,
    depth: 3,
  }).padEnd(300, ' ');
  for (let j = 0; j < 99; j++)
    events.push({
      type: 'response.function_call_arguments.delta',
      item_id: itemId,
      output_index: call + 1,
      delta: args.slice(j * 3, j * 3 + 3),
    });
}
events.push({
  type: 'response.completed',
  response: {
    id: 'resp_1',
    status: 'completed',
    usage: { input_tokens: 1000, output_tokens: 400, total_tokens: 1400 },
  },
});
const eventTexts = events.map((event) => JSON.stringify(event));
const responsesSettings = {
  ...settings,
  store: false,
  encryptedReasoning: true,
  reasoning: undefined,
  toolNamespace: undefined,
};

let parts = 0;
const bench = new Bench({ time: 500, warmup: true });
bench
  .add('build: request (10 tools, 19 messages)', () => {
    buildOpenAIRequest(request, settings, true);
  })
  .add('build: request, strict tools', () => {
    buildOpenAIRequest(request, { ...settings, strictTools: true }, true);
  })
  .add('baseline: JSON.stringify of the built body', () => {
    JSON.stringify(builtBody);
  })
  .add('stream: accumulate 1,000 parts', () => {
    const accumulator = new OpenAIStreamAccumulator('gpt-5-mini');
    parts = 0;
    for (const chunk of chunks) parts += accumulator.push(chunk).length;
    parts += accumulator.finishParts().length;
    if (accumulator.result().toolCalls.length !== 4) throw new Error('unexpected');
  })
  .add('baseline: JSON.parse of the 1,000 chunks', () => {
    for (const text of chunkTexts) JSON.parse(text);
  })
  .add('build: Responses request (10 tools, 19 msgs)', () => {
    buildOpenAIResponsesRequest(request, responsesSettings, true);
  })
  .add('stream: accumulate 1,000 Responses events', () => {
    const accumulator = new OpenAIResponsesStreamAccumulator('gpt-5-mini', 'openai');
    for (const event of events) accumulator.push(event);
    accumulator.finishParts();
    if (accumulator.result().toolCalls.length !== 4) throw new Error('unexpected');
  })
  .add('baseline: JSON.parse of the Responses events', () => {
    for (const text of eventTexts) JSON.parse(text);
  });

await bench.run();

const rows = benchRows(bench);
const byName = Object.fromEntries(rows.map((row) => [row.name, row]));
const stringifyBaseline = byName['baseline: JSON.stringify of the built body']!.meanUs;
const parseBaseline = byName['baseline: JSON.parse of the 1,000 chunks']!.meanUs;
const eventsBaseline = byName['baseline: JSON.parse of the Responses events']!.meanUs;

console.log(
  `\n@toolwire/openai benchmarks (Node ${process.versions.node}, ${process.arch}); the stream task yields ${parts} parts per run\n`,
);
console.log(
  `${'task'.padEnd(44)} ${'mean µs'.padStart(10)} ${'p99 µs'.padStart(10)} ${'ops/s'.padStart(10)}  ratio`,
);
for (const row of rows) {
  const base = row.name.includes('Responses events')
    ? eventsBaseline
    : row.name.startsWith('stream') || row.name.includes('JSON.parse')
      ? parseBaseline
      : stringifyBaseline;
  const label =
    base === eventsBaseline
      ? 'JSON.parse of the events'
      : base === parseBaseline
        ? 'JSON.parse of the chunks'
        : 'JSON.stringify of the body';
  const ratio = row.name.startsWith('baseline')
    ? 'baseline'
    : `${(row.meanUs / base).toFixed(2)}× ${label}`;
  console.log(
    `${row.name.padEnd(44)} ${row.meanUs.toFixed(2).padStart(10)} ${row.p99Us.toFixed(2).padStart(10)} ${Math.round(row.opsPerSec).toLocaleString('en-US').padStart(10)}  ${ratio}`,
  );
}
