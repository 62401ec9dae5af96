// The agent loop layers: one prompt, one tool call, one final answer, against a no-delay fake
// OpenAI Chat Completions server; non-streaming and streaming, each with its hand-written floor.
import { fileURLToPath } from 'node:url';
import type { Contender, Layer } from '../harness.js';
import { FAKE_OPENAI_URL, startFakeOpenAI } from '../fixtures/agent-task.js';

const script = (name: string) =>
  fileURLToPath(new URL(`../contenders/agent/${name}.ts`, import.meta.url));

async function startFake() {
  const fake = await startFakeOpenAI();
  return { env: { [FAKE_OPENAI_URL]: fake.url }, close: () => fake.close() };
}

function contenders(stream: boolean): Contender[] {
  const args = stream ? ['--stream'] : [];
  return [
    {
      name: `toolwire ${stream ? 'stream()' : 'run()'}`,
      role: 'toolwire',
      script: script('toolwire'),
      args,
    },
    {
      name: `ai-sdk ${stream ? 'streamText' : 'generateText'}`,
      role: 'peer',
      script: script('ai-sdk'),
      args,
    },
    {
      name: `openai-agents Runner.run${stream ? ' (stream)' : ''}`,
      role: 'peer',
      script: script('openai-agents'),
      args,
    },
    {
      name: `openai SDK hand loop${stream ? ' (stream)' : ''}`,
      role: 'floor',
      script: script('openai-loop'),
      args,
    },
  ];
}

function layer(stream: boolean): Layer {
  const list = contenders(stream);
  const [toolwire, aiSdk, , floor] = list.map((c) => c.name) as [string, string, string, string];
  return {
    name: `agent loop, ${stream ? 'streaming' : 'non-streaming'}, 1 tool call`,
    unit: 'ms/op',
    contenders: list,
    goals: [
      { subject: toolwire, against: aiSdk, ratio: 1.0 },
      { subject: toolwire, against: floor, ratio: 1.2 },
    ],
    notes: [
      'One op: a prompt, the model calls `add` once, the tool runs, the model answers (two requests to a no-delay fake OpenAI Chat Completions server on 127.0.0.1, in the runner process). Every contender checks the answer; 50 warm-up ops, then 300 timed in 20 batches (the median batch counts).',
    ],
    start: startFake,
  };
}

export const agentLayers = (): Layer[] => [layer(false), layer(true)];
