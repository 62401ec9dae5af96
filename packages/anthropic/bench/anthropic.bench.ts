// pnpm bench: request building per call and stream accumulation per 1,000 stream events, with a
// baseline measured in the same run (JSON.stringify of the built body; plain string concatenation
// of the same deltas), so the numbers read as overhead over the unavoidable work.
import { textResult, type ChatRequest, type ToolSpec } from '@toolwire/schema';
import { Bench } from 'tinybench';
import { createAnthropic } from '../src/index.js';
import {
  AnthropicStreamAccumulator,
  type AnthropicStreamEvent,
} from '../src/anthropic-stream-accumulator.js';
import { benchRows } from '@toolwire/bench-kit';

const tools: ToolSpec[] = Array.from({ length: 5 }, (_, i) => ({
  name: `tool_${i}`,
  description: `Tool number ${i} for the benchmark`,
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string' },
      limit: { type: 'integer', minimum: 1 },
      tags: { type: 'array', items: { type: 'string' } },
    },
    required: ['path'],
  },
}));
const request: ChatRequest = {
  tools,
  toolChoice: 'auto',
  messages: [
    { role: 'system', content: 'You are a careful assistant.' },
    { role: 'user', content: 'Read both files.' },
    {
      role: 'assistant',
      content: 'Reading them.',
      toolCalls: [
        { id: 'toolu_1', name: 'tool_0', arguments: { path: '/a' } },
        { id: 'toolu_2', name: 'tool_1', arguments: { path: '/b' } },
      ],
    },
    {
      role: 'tool',
      results: [
        textResult('toolu_1', 'tool_0', 'contents of a'),
        textResult('toolu_2', 'tool_1', 'contents of b'),
      ],
    },
    { role: 'user', content: 'Now summarise.' },
  ],
};
const model = createAnthropic({ apiKey: 'bench' })('claude-bench');

// 1,000 events: message_start, a text block of 497 deltas, a tool block of 496 argument fragments.
const argumentsJson = JSON.stringify({ path: '/tmp/file.txt', note: 'x'.repeat(2400) });
const fragments = Array.from({ length: 496 }, (_, i) =>
  argumentsJson.slice((i * argumentsJson.length) / 496, ((i + 1) * argumentsJson.length) / 496),
);
const events: AnthropicStreamEvent[] = [
  {
    type: 'message_start',
    message: { id: 'msg_1', model: 'claude-bench', usage: { input_tokens: 10, output_tokens: 1 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ...Array.from({ length: 497 }, () => ({
    type: 'content_block_delta',
    index: 0,
    delta: { type: 'text_delta', text: 'word ' },
  })),
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'tool_0', input: {} },
  },
  ...fragments.map((partial_json) => ({
    type: 'content_block_delta',
    index: 1,
    delta: { type: 'input_json_delta', partial_json },
  })),
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 900 } },
  { type: 'message_stop' },
];
if (events.length !== 1000) throw new Error(`expected 1000 events, built ${events.length}`);

const builtBody = model.buildRequest(request).body;

const bench = new Bench({ time: 500, warmup: true });
bench
  .add('build request (5 tools, 5 messages)', () => {
    model.buildRequest(request);
  })
  .add('baseline: JSON.stringify of the built body', () => {
    JSON.stringify(builtBody);
  })
  .add('accumulate 1,000 stream events', () => {
    const accumulator = new AnthropicStreamAccumulator();
    let parts = 0;
    for (const event of events) parts += accumulator.push(event).length;
    if (accumulator.message().content.length !== 2 || parts < 990) throw new Error('unexpected');
  })
  .add('baseline: concatenate the same 1,000 deltas', () => {
    let text = '';
    let json = '';
    for (const event of events) {
      const delta = event.delta;
      if (delta?.type === 'text_delta') text += delta.text as string;
      else if (delta?.type === 'input_json_delta') json += delta.partial_json as string;
    }
    if (text.length === 0 || JSON.parse(json) === null) throw new Error('unexpected');
  });
await bench.run();

const rows = benchRows(bench);
const mean = (name: string) => rows.find((row) => row.name === name)!.meanUs;

console.log(`\n@toolwire/anthropic benchmarks (Node ${process.versions.node}, ${process.arch})\n`);
console.log(`${'task'.padEnd(46)} ${'mean µs'.padStart(10)} ${'p99 µs'.padStart(10)}`);
for (const row of rows)
  console.log(
    `${row.name.padEnd(46)} ${row.meanUs.toFixed(2).padStart(10)} ${row.p99Us.toFixed(2).padStart(10)}`,
  );
const build = mean('build request (5 tools, 5 messages)');
const accumulate = mean('accumulate 1,000 stream events');
console.log(
  `\nrequest building: ${build.toFixed(1)} µs per call (${(build / mean('baseline: JSON.stringify of the built body')).toFixed(1)}× a JSON.stringify of the body)`,
);
console.log(
  `stream accumulation: ${accumulate.toFixed(1)} µs per 1,000 parts (${(accumulate / 1000).toFixed(3)} µs per event; ${(accumulate / mean('baseline: concatenate the same 1,000 deltas')).toFixed(1)}× plain concatenation)`,
);
