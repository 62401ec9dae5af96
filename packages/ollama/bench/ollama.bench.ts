// pnpm bench: request building per call and stream accumulation per 1,000 NDJSON chunks, with
// baselines measured in the same run (JSON.stringify of the built body; plain concatenation of the
// same chunks), so the numbers read as overhead over the unavoidable work.
import { textResult, type ChatRequest, type ToolSpec } from '@toolwire/schema';
import { Bench } from 'tinybench';
import { createOllama } from '../src/index.js';
import { OllamaStreamAccumulator } from '../src/ollama-stream-accumulator.js';
import type { OllamaChatChunk } from '../src/ollama-wire.js';
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
        { id: 'call_1', name: 'tool_0', arguments: { path: '/a' } },
        { id: 'call_2', name: 'tool_1', arguments: { path: '/b' } },
      ],
    },
    {
      role: 'tool',
      results: [
        textResult('call_1', 'tool_0', 'contents of a'),
        textResult('call_2', 'tool_1', 'contents of b'),
      ],
    },
    { role: 'user', content: 'Now summarise.' },
  ],
};
const model = createOllama()('llama-bench');
const builtBody = model.buildRequest(request).body;

// 1,000 chunks: 997 text lines, one line with two whole tool calls, a thinking line, the done line.
const chunks: OllamaChatChunk[] = [
  {
    model: 'llama-bench',
    message: { role: 'assistant', content: '', thinking: 'plan' },
    done: false,
  },
  ...Array.from({ length: 997 }, () => ({
    model: 'llama-bench',
    message: { role: 'assistant', content: 'word ' },
    done: false,
  })),
  {
    model: 'llama-bench',
    message: {
      role: 'assistant',
      content: '',
      tool_calls: [
        { id: 'call_a', function: { index: 0, name: 'tool_0', arguments: { path: '/a' } } },
        { id: 'call_b', function: { index: 1, name: 'tool_1', arguments: { path: '/b' } } },
      ],
    },
    done: false,
  },
  {
    model: 'llama-bench',
    message: { role: 'assistant', content: '' },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 100,
    eval_count: 1000,
  },
];
if (chunks.length !== 1000) throw new Error(`expected 1000 chunks, built ${chunks.length}`);

const bench = new Bench({ time: 500, warmup: true });
bench
  .add('build request (5 tools, 5 messages)', () => {
    model.buildRequest(request);
  })
  .add('baseline: JSON.stringify of the built body', () => {
    JSON.stringify(builtBody);
  })
  .add('accumulate 1,000 NDJSON chunks', () => {
    const accumulator = new OllamaStreamAccumulator();
    let parts = 0;
    for (const chunk of chunks) parts += accumulator.push(chunk).length;
    if (accumulator.result().toolCalls.length !== 2 || parts < 1000) throw new Error('unexpected');
  })
  .add('baseline: concatenate the same 1,000 chunks', () => {
    let text = '';
    let calls = 0;
    for (const chunk of chunks) {
      text += chunk.message?.content ?? '';
      calls += chunk.message?.tool_calls?.length ?? 0;
    }
    if (text.length === 0 || calls !== 2) throw new Error('unexpected');
  });

await bench.run();

const rows = benchRows(bench);
const mean = (name: string) => rows.find((row) => row.name === name)!.meanUs;

console.log(`\n@toolwire/ollama benchmarks (Node ${process.versions.node}, ${process.arch})\n`);
console.log(`${'task'.padEnd(46)} ${'mean µs'.padStart(10)} ${'p99 µs'.padStart(10)}`);
for (const row of rows) {
  console.log(
    `${row.name.padEnd(46)} ${row.meanUs.toFixed(2).padStart(10)} ${row.p99Us.toFixed(2).padStart(10)}`,
  );
}
const build = mean('build request (5 tools, 5 messages)');
const accumulate = mean('accumulate 1,000 NDJSON chunks');
console.log(
  `\nrequest building: ${build.toFixed(1)} µs per call (${(build / mean('baseline: JSON.stringify of the built body')).toFixed(1)}× a JSON.stringify of the body)`,
);
console.log(
  `stream accumulation: ${accumulate.toFixed(1)} µs per 1,000 parts (${(accumulate / 1000).toFixed(3)} µs per chunk; ${(accumulate / mean('baseline: concatenate the same 1,000 chunks')).toFixed(1)}× plain concatenation)`,
);
