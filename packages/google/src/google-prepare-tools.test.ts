import type { ChatRequest, ChatWarning, ToolChoice, ToolSpec } from '@toolwire/schema';
import { FunctionCallingConfigMode } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { prepareGoogleTools } from './google-prepare-tools.js';

const lookup: ToolSpec = {
  name: 'lookup',
  description: 'Look something up',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
};
const messages: ChatRequest['messages'] = [{ role: 'user', content: 'hi' }];
const plain = { validatedFunctionCalls: false };

describe('prepareGoogleTools', () => {
  it('declares the tools as functions and maps each tool choice to a calling mode', () => {
    const modes: Array<[ToolChoice | undefined, boolean, unknown]> = [
      [undefined, false, { mode: FunctionCallingConfigMode.AUTO }],
      ['auto', true, { mode: FunctionCallingConfigMode.VALIDATED }],
      ['none', false, { mode: FunctionCallingConfigMode.NONE }],
      ['required', false, { mode: FunctionCallingConfigMode.ANY }],
      [
        { type: 'tool', toolName: 'lookup' },
        false,
        { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['lookup'] },
      ],
    ];
    for (const [toolChoice, validatedFunctionCalls, functionCallingConfig] of modes) {
      const prepared = prepareGoogleTools(
        { messages, tools: [lookup], ...(toolChoice ? { toolChoice } : {}) },
        { validatedFunctionCalls },
        [],
      );
      expect(prepared.tools).toEqual([
        {
          functionDeclarations: [
            {
              name: 'lookup',
              description: 'Look something up',
              parameters: expect.objectContaining({ type: 'object' }),
            },
          ],
        },
      ]);
      expect(prepared.toolConfig).toEqual({ functionCallingConfig });
    }
  });

  it('sends nothing without tools, and says that parallelToolCalls: false cannot be sent', () => {
    const warnings: ChatWarning[] = [];
    expect(prepareGoogleTools({ messages, parallelToolCalls: false }, plain, warnings)).toEqual({});
    expect(warnings).toEqual([expect.objectContaining({ type: 'unsupported-setting' })]);
  });

  it('asks for JSON with the converted schema for a response format', () => {
    const prepared = prepareGoogleTools(
      { messages, responseFormat: { type: 'json', schema: lookup.inputSchema } },
      plain,
      [],
    );
    expect(prepared.responseMimeType).toBe('application/json');
    expect(prepared.responseSchema).toMatchObject({ type: 'object', required: ['q'] });
  });

  it('rejects a function name Gemini refuses and a response format without a schema object', () => {
    expect(() =>
      prepareGoogleTools({ messages, tools: [{ ...lookup, name: '1lookup' }] }, plain, []),
    ).toThrow(/^request\.tools\[0\]\.name "1lookup" must match/);
    expect(() =>
      prepareGoogleTools(
        { messages, responseFormat: { type: 'json', schema: null as never } },
        plain,
        [],
      ),
    ).toThrow('request.responseFormat must be { type: "json", schema: <JSON Schema object> }');
  });
});
