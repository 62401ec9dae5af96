// pnpm bench: what the agent adds per run over a hand-written minimal loop doing the same model
// calls and tool executions, measured in the same run against an in-memory scripted model (no
// network), so the numbers are the loop's own overhead: validation, events, transcript.
import { Bench } from 'tinybench';
import { executeToolCalls, type ChatModel, type Message } from '@toolwire/schema';
import { createScriptedModel, type ScriptedTurn } from '../test/scripted-chat-model.js';
import { calculate, weather } from '../test/test-tools.js';
import { createAgent } from '../src/index.js';
import { benchRows } from '@toolwire/bench-kit';

const tools = [calculate, weather];
const toolTurn: ScriptedTurn = {
  toolCalls: [
    { name: 'calculate', arguments: '{"a":2,"b":3,"op":"+"}' },
    { name: 'get_weather', arguments: { city: 'Oslo' } },
    { name: 'calculate', arguments: { a: 4, b: 5, op: '*' } },
  ],
};
const answerTurn: ScriptedTurn = { text: 'Five, sunny in Oslo, and twenty.' };
const selection: ScriptedTurn = {
  text: JSON.stringify({
    reasoning: 'math and weather',
    selected_tools: ['calculate', 'get_weather'],
  }),
};
const interpretation: ScriptedTurn = { text: JSON.stringify({ content: 'Five and sunny.' }) };

/** A model that replays the same two turns forever. */
function loopingModel(turns: ScriptedTurn[]): ChatModel {
  const model = createScriptedModel([]);
  let i = 0;
  const refill = () => model.push(turns[i++ % turns.length]!);
  return {
    ...model,
    generate: (request) => (refill(), model.generate(request)),
    stream: (request) => (refill(), model.stream(request)),
  };
}

const loopModel = loopingModel([toolTurn, answerTurn]);
const agent = createAgent({ model: loopModel, tools });
const stagedAgent = createAgent({
  model: loopingModel([selection, toolTurn, interpretation]),
  tools,
  mode: 'staged',
});
const baselineModel = loopingModel([toolTurn, answerTurn]);

/** The least a loop must do: call, execute the calls, call again. */
async function minimalLoop(prompt: string): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: prompt }];
  for (;;) {
    const response = await baselineModel.generate({ messages, tools, toolChoice: 'auto' });
    messages.push({ role: 'assistant', content: response.text, toolCalls: response.toolCalls });
    if (response.toolCalls.length === 0) return response.text;
    messages.push({ role: 'tool', results: await executeToolCalls(response.toolCalls, tools) });
  }
}

const bench = new Bench({ time: 500, warmup: true });
bench
  .add(
    'baseline: minimal loop (generate + executeToolCalls), 2 model calls, 3 tool calls',
    async () => {
      await minimalLoop('go');
    },
  )
  .add('agent.run: tool loop, 2 model calls, 3 parallel tool calls', async () => {
    await agent.run('go');
  })
  .add('agent.stream: the same run, every event consumed', async () => {
    for await (const _event of agent.stream('go'));
  })
  .add('agent.run: staged pipeline, 3 model calls, 3 tool calls', async () => {
    await stagedAgent.run('go');
  });

await bench.run();
const rows = benchRows(bench);
const baseline = rows[0]!.meanUs;
for (const row of rows) {
  console.log(
    `${row.name.padEnd(86)} ${row.meanUs.toFixed(1).padStart(8)} µs/run  ${(row.meanUs / baseline).toFixed(2)}x baseline`,
  );
}
const sample = await agent.run('go');
console.log(
  `transcript of that run: ${JSON.stringify(sample.transcript).length} bytes of JSON, ${sample.steps.length} steps`,
);
