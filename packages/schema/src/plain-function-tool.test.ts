import { describe, expect, it } from 'vitest';
import { TEXT_INPUT_SCHEMA, type ToolSpec } from './define-tool.js';
import { describeWithExamples, plainFunctionTool, textInputSchema } from './plain-function-tool.js';
import { parseToolArguments } from './parse-tool-arguments.js';

const sql: ToolSpec = {
  name: 'run_sql',
  description: 'Run a read-only query',
  inputSchema: TEXT_INPUT_SCHEMA,
  inputFormat: { type: 'grammar', syntax: 'regex', definition: '^SELECT [a-z_, *]+ FROM [a-z_]+$' },
  inputExamples: [{ input: 'SELECT * FROM orders' }],
  allowedCallers: ['programmatic'],
  deferred: true,
};

describe('plainFunctionTool', () => {
  it('offers a regex-grammar tool as one string whose pattern the arguments are checked against', () => {
    const plain = plainFunctionTool(sql);
    expect(plain).toEqual({
      name: 'run_sql',
      description: 'Run a read-only query\n\nExample inputs:\n{"input":"SELECT * FROM orders"}',
      inputSchema: {
        ...TEXT_INPUT_SCHEMA,
        properties: {
          input: {
            type: 'string',
            pattern: '^SELECT [a-z_, *]+ FROM [a-z_]+$',
            description:
              'Text that matches the regular expression ^SELECT [a-z_, *]+ FROM [a-z_]+$',
          },
        },
      },
    });
    expect(parseToolArguments(plain.inputSchema, { input: 'DROP TABLE orders' }).success).toBe(
      false,
    );
    expect(parseToolArguments(plain.inputSchema, { input: 'SELECT id FROM orders' }).success).toBe(
      true,
    );
  });

  it('gives a Lark grammar in the description and keeps examples where the provider takes them', () => {
    const lark = { type: 'grammar' as const, syntax: 'lark' as const, definition: 'start: "a"+' };
    expect(textInputSchema(lark).properties!.input).toEqual({
      type: 'string',
      description: 'Text that matches this Lark grammar:\nstart: "a"+',
    });
    expect(plainFunctionTool(sql, { keepExamples: true })).toMatchObject({
      description: 'Run a read-only query',
      inputExamples: [{ input: 'SELECT * FROM orders' }],
    });
    expect(describeWithExamples({ ...sql, inputExamples: [] })).toBe('Run a read-only query');
  });
});
