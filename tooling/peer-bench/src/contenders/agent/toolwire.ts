// Toolwire: `createAgent(...).run()` (non-streaming requests) or `.stream()` (--stream) on
// `@toolwire/openai`, as a user writes it.
import { createAgent } from '@toolwire/agent';
import { createOpenAI } from '@toolwire/openai';
import { defineTool } from '@toolwire/schema';
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

const streaming = process.argv.includes('--stream');
const agent = createAgent({
  model: createOpenAI({ baseURL: fakeOpenAIBaseURL(), apiKey: 'bench-key' })(MODEL_ID),
  tools: [
    defineTool({
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      inputSchema: toolSchema(),
      execute: (input) => addNumbers(input as { a: number; b: number }),
    }),
  ],
});

async function once(): Promise<string> {
  if (!streaming) return (await agent.run(PROMPT)).text;
  let deltas = '';
  for await (const event of agent.stream(PROMPT)) {
    if (event.type === 'text-delta') deltas += event.delta;
    if (event.type === 'finish') return deltas;
  }
  throw new Error('the agent stream ended without a finish event');
}

report(
  await msPerOp(
    async () => checkAnswer(await once()),
    iterationsFromEnv({ warmup: 50, iterations: 300 }),
  ),
);
