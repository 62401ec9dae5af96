// The floor: the least a tool loop does, written by hand on the `openai` SDK (the SDK Toolwire's
// adapter uses): call, run the tool calls, call again; non-streaming, or streaming (--stream)
// with the deltas assembled by hand. No validation, no events, no transcript.
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

type Message = OpenAI.Chat.ChatCompletionMessageParam;
type ToolCall = { id: string; name: string; arguments: string };

const streaming = process.argv.includes('--stream');
const client = new OpenAI({ baseURL: fakeOpenAIBaseURL(), apiKey: 'bench-key', maxRetries: 0 });
const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: TOOL_NAME,
      description: TOOL_DESCRIPTION,
      parameters: toolSchema(),
    },
  },
];

async function turn(messages: Message[]): Promise<{ text: string; calls: ToolCall[] }> {
  if (!streaming) {
    const completion = await client.chat.completions.create({ model: MODEL_ID, messages, tools });
    const message = completion.choices[0]!.message;
    return {
      text: message.content ?? '',
      calls: (message.tool_calls ?? []).flatMap((call) =>
        call.type === 'function'
          ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
          : [],
      ),
    };
  }
  const stream = await client.chat.completions.create({
    model: MODEL_ID,
    messages,
    tools,
    stream: true,
  });
  let text = '';
  const calls: ToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    if (!delta) continue;
    if (delta.content) text += delta.content;
    for (const part of delta.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
    }
  }
  return { text, calls };
}

async function once(): Promise<string> {
  const messages: Message[] = [{ role: 'user', content: PROMPT }];
  for (;;) {
    const { text, calls } = await turn(messages);
    if (calls.length === 0) return text;
    messages.push({
      role: 'assistant',
      content: text || null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function' as const,
        function: { name: call.name, arguments: call.arguments },
      })),
    });
    for (const call of calls) {
      const input = JSON.parse(call.arguments) as { a: number; b: number };
      messages.push({ role: 'tool', tool_call_id: call.id, content: String(addNumbers(input)) });
    }
  }
}

report(
  await msPerOp(
    async () => checkAnswer(await once()),
    iterationsFromEnv({ warmup: 50, iterations: 300 }),
  ),
);
