// Small tools for the agent's unit tests.
import { defineTool, ToolExecutionError, type AnyTool } from '@toolwire/schema';

export const calculate = defineTool({
  name: 'calculate',
  description: 'Evaluate a simple arithmetic expression of two numbers',
  inputSchema: {
    type: 'object',
    properties: {
      a: { type: 'number' },
      b: { type: 'number' },
      op: { type: 'string', enum: ['+', '*'] },
    },
    required: ['a', 'b', 'op'],
    additionalProperties: false,
  },
  execute: ({ a, b, op }) => ({
    value: op === '+' ? Number(a) + Number(b) : Number(a) * Number(b),
  }),
});

export const weather = defineTool({
  name: 'get_weather',
  description: 'Get the current weather for a city',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
    required: ['city'],
  },
  execute: ({ city }) => `Sunny, 21 C in ${String(city)}`,
});

export const failing = defineTool({
  name: 'flaky_service',
  description: 'A service that is down for maintenance',
  inputSchema: { type: 'object', properties: {} },
  execute: () => {
    throw new ToolExecutionError({ category: 'networkError', message: 'service unavailable' });
  },
});

/** A destructive tool that records what it deleted. */
export function deleteTool(deleted: string[] = []): AnyTool {
  return defineTool({
    name: 'delete_file',
    description: 'Delete a file from the workspace permanently',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    annotations: { destructiveHint: true },
    execute: ({ path }) => {
      deleted.push(String(path));
      return `deleted ${String(path)}`;
    },
  });
}

/** A tool that waits until `signal` aborts, recording that it saw the abort. */
export function slowTool(seen: { aborted: boolean; started: boolean }): AnyTool {
  return defineTool({
    name: 'slow_job',
    description: 'A job that takes a very long time to finish',
    inputSchema: { type: 'object', properties: {} },
    execute: (_args, { signal }) =>
      new Promise((_, reject) => {
        seen.started = true;
        signal.addEventListener('abort', () => {
          seen.aborted = true;
          reject(new Error('aborted'));
        });
      }),
  });
}
