// The OpenAI Agents SDK: `Runner.run(agent, prompt)`, or with `{ stream: true }` reading its text
// stream (--stream), on the Chat Completions model with the fake server as base URL, tracing off.
import {
  Agent,
  OpenAIChatCompletionsModel,
  Runner,
  setTracingDisabled,
  tool,
} from '@openai/agents';
import OpenAI from 'openai';
import { iterationsFromEnv, msPerOp, report } from '../../harness.js';
import {
  addNumbers,
  checkAnswer,
  fakeOpenAIBaseURL,
  MODEL_ID,
  PROMPT,
  TOOL_DESCRIPTION,
  TOOL_NAME,
  toolSchema,
} from '../../fixtures/agent-task.js';

// Offline: no trace is exported anywhere.
setTracingDisabled(true);

const streaming = process.argv.includes('--stream');
const client = new OpenAI({ baseURL: fakeOpenAIBaseURL(), apiKey: 'bench-key', maxRetries: 0 });
const agent = new Agent({
  name: 'bench',
  model: new OpenAIChatCompletionsModel(
    client as unknown as ConstructorParameters<typeof OpenAIChatCompletionsModel>[0],
    MODEL_ID,
  ),
  tools: [
    tool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: toolSchema(),
      execute: async (input) => String(addNumbers(input as { a: number; b: number })),
    }),
  ],
});
const runner = new Runner({ tracingDisabled: true });

async function once(): Promise<string> {
  if (!streaming) return String((await runner.run(agent, PROMPT)).finalOutput);
  const result = await runner.run(agent, PROMPT, { stream: true });
  let deltas = '';
  for await (const delta of result.toTextStream()) deltas += delta;
  await result.completed;
  return deltas;
}

report(
  await msPerOp(
    async () => checkAnswer(await once()),
    iterationsFromEnv({ warmup: 50, iterations: 300 }),
  ),
);
