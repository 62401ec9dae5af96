import { describe, expect, it } from 'vitest';
import { prepareAnthropicTools } from './anthropic-prepare-tools.js';

const tool = {
  name: 'lookup',
  description: 'Look something up',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object' as const,
    properties: { q: { type: 'string' as const } },
  },
};
const base = {
  tools: [tool],
  toolChoice: undefined,
  parallelToolCalls: undefined,
  responseFormat: undefined,
  thinking: false,
};

describe('prepareAnthropicTools', () => {
  it('sends no tool_choice by default and reports schema changes per tool', () => {
    const prepared = prepareAnthropicTools(base);
    expect(prepared.toolChoice).toBeUndefined();
    expect(prepared.tools).toEqual([
      {
        name: 'lookup',
        description: 'Look something up',
        input_schema: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ]);
    expect(prepared.warnings).toEqual([
      expect.objectContaining({ type: 'schema-changed', toolName: 'lookup', pointer: '/$schema' }),
    ]);
  });

  it('warns that parallelToolCalls does nothing without tools or with "none"', () => {
    expect(
      prepareAnthropicTools({ ...base, tools: [], parallelToolCalls: false }).warnings.map(
        (w) => w.type,
      ),
    ).toEqual(['parallel-calls-ignored']);
    const none = prepareAnthropicTools({ ...base, toolChoice: 'none', parallelToolCalls: false });
    expect(none.toolChoice).toEqual({ type: 'none' });
    expect(none.warnings.map((w) => w.type)).toContain('parallel-calls-ignored');
  });

  it('keeps "none" and "auto" as they are while thinking is on, and downgrades a specific tool', () => {
    expect(
      prepareAnthropicTools({ ...base, toolChoice: 'none', thinking: true }).toolChoice,
    ).toEqual({ type: 'none' });
    const specific = prepareAnthropicTools({
      ...base,
      toolChoice: { type: 'tool', toolName: 'lookup' },
      thinking: true,
    });
    expect(specific.toolChoice).toEqual({ type: 'auto' });
    expect(specific.downgradedFrom).toEqual({ type: 'tool', toolName: 'lookup' });
    expect(specific.warnings.map((w) => w.type)).toContain('tool-choice-downgraded');
  });

  it('forces the structured-output tool over another tool choice, with a warning', () => {
    const prepared = prepareAnthropicTools({
      ...base,
      toolChoice: 'required',
      responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer' },
    });
    expect(prepared.toolChoice).toEqual({
      type: 'tool',
      name: 'answer',
      disable_parallel_tool_use: true,
    });
    expect(prepared.tools!.map((t) => ('name' in t ? t.name : t.type))).toEqual([
      'lookup',
      'answer',
    ]);
    expect(prepared.warnings.map((w) => w.type)).toContain('unsupported-setting');
  });

  it('rejects a structured-output name that collides with a tool', () => {
    expect(() =>
      prepareAnthropicTools({
        ...base,
        responseFormat: { type: 'json', schema: { type: 'object' }, name: 'lookup' },
      }),
    ).toThrow(/responseFormat.name "lookup" collides/);
  });
});
