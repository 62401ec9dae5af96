// The AI SDK: `generateText`, or `streamText` reading its text stream (--stream), with
// `@ai-sdk/openai`'s Chat Completions model pointed at the fake server.
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, jsonSchema, streamText, tool } from 'ai';
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

// The SDK's warnings go to the console; a bench has no use for them.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const streaming = process.argv.includes('--stream');
const model = createOpenAI({ baseURL: fakeOpenAIBaseURL(), apiKey: 'bench-key' }).chat(MODEL_ID);
const tools = {
  [TOOL_NAME]: tool({
    description: TOOL_DESCRIPTION,
    inputSchema: jsonSchema<{ a: number; b: number }>(toolSchema()),
    execute: async (input: { a: number; b: number }) => addNumbers(input),
  }),
};

async function once(): Promise<string> {
  const options = { model, tools, prompt: PROMPT, stopWhen: isStepCount(5), maxRetries: 0 };
  if (!streaming) return (await generateText(options)).text;
  const result = streamText(options);
  let deltas = '';
  for await (const delta of result.textStream) deltas += delta;
  return deltas;
}

report(
  await msPerOp(
    async () => checkAnswer(await once()),
    iterationsFromEnv({ warmup: 50, iterations: 300 }),
  ),
);
