import type { ChatRequest, ChatWarning, ToolSpec } from '@toolwire/schema';
import { describe, expect, it } from 'vitest';
import { prepareOpenAIResponseFormat, prepareOpenAITools } from './openai-prepare-tools.js';
import { buildOpenAIRequest, type OpenAIRequestSettings } from './openai-request.js';
import { buildOpenAIResponsesRequest } from './openai-responses-request.js';

const lookup: ToolSpec = {
  name: 'lookup',
  description: 'Look something up',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { q: { type: 'string' } },
    required: ['q'],
  },
};
const messages: ChatRequest['messages'] = [{ role: 'user', content: 'hi' }];
const loose = { schemaDialect: 'openai', strictTools: false, nativeToolFeatures: true } as const;
const settings: OpenAIRequestSettings = {
  modelId: 'gpt-test',
  providerName: 'openai',
  schemaDialect: 'openai',
  strictTools: true,
  strictResponseFormat: true,
  maxTokensField: 'max_completion_tokens',
  streamUsage: false,
  imageToolResults: 'user-message',
  nativeToolFeatures: true,
};

describe('prepareOpenAITools', () => {
  it('converts the schemas and keeps the tool choice and parallel setting that go with them', () => {
    const warnings: ChatWarning[] = [];
    const prepared = prepareOpenAITools(
      {
        messages,
        tools: [lookup],
        toolChoice: { type: 'tool', toolName: 'lookup' },
        parallelToolCalls: false,
      },
      loose,
      warnings,
    );
    expect(prepared).toEqual({
      tools: [
        {
          kind: 'function',
          name: 'lookup',
          description: 'Look something up',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      ],
      toolChoice: { type: 'tool', toolName: 'lookup' },
      parallelToolCalls: false,
      strictToolNames: [],
      customToolNames: [],
    });
    expect(warnings).toEqual([
      expect.objectContaining({ type: 'schema-changed', toolName: 'lookup', pointer: '/$schema' }),
    ]);
  });

  it('drops parallelToolCalls with a warning when there are no tools', () => {
    const warnings: ChatWarning[] = [];
    expect(prepareOpenAITools({ messages, parallelToolCalls: true }, loose, warnings)).toEqual({
      strictToolNames: [],
      customToolNames: [],
    });
    expect(warnings).toEqual([
      {
        type: 'unsupported-setting',
        message: 'parallelToolCalls was ignored: the request has no tools',
      },
    ]);
  });

  it('sends eligible tools in strict form and names them', () => {
    const prepared = prepareOpenAITools({ messages, tools: [lookup] }, settings, []);
    expect(prepared.strictToolNames).toEqual(['lookup']);
    expect(prepared.tools?.[0]).toMatchObject({
      strict: true,
      parameters: { additionalProperties: false, required: ['q'] },
    });
  });

  it('rejects a tool name that OpenAI-compatible APIs refuse, naming the field', () => {
    expect(() =>
      prepareOpenAITools({ messages, tools: [{ ...lookup, name: 'look up' }] }, loose, []),
    ).toThrow(/^request\.tools\[0\]\.name "look up" must match/);
  });

  it('gives Chat Completions and Responses the same tools and warnings (one preparation)', () => {
    const request: ChatRequest = { messages, tools: [lookup], toolChoice: 'required' };
    const chat = buildOpenAIRequest(request, settings, false);
    const responses = buildOpenAIResponsesRequest(
      request,
      {
        ...settings,
        store: undefined,
        encryptedReasoning: false,
        reasoning: undefined,
        toolNamespace: undefined,
      },
      false,
    );
    const chatWire = chat.body.tools![0]!;
    if (chatWire.type !== 'function') throw new Error('expected a function tool');
    const { function: chatTool } = chatWire;
    const { type: _responsesType, ...responsesTool } = responses.body.tools![0]!;
    expect(responsesTool).toEqual(chatTool);
    expect(responses.warnings).toEqual(chat.warnings);
    expect(responses.strictToolNames).toEqual(chat.strictToolNames);
    expect([chat.body.tool_choice, responses.body.tool_choice]).toEqual(['required', 'required']);
  });
});

describe('prepareOpenAIResponseFormat', () => {
  it('names the format "response" by default and converts it to strict form when asked', () => {
    const format = prepareOpenAIResponseFormat(
      { messages, responseFormat: { type: 'json', schema: lookup.inputSchema } },
      { schemaDialect: 'openai', strictResponseFormat: true },
      [],
    );
    expect(format).toMatchObject({
      name: 'response',
      strict: true,
      schema: { additionalProperties: false },
    });
  });

  it('rejects a response format without a schema object', () => {
    expect(() =>
      prepareOpenAIResponseFormat(
        { messages, responseFormat: { type: 'json', schema: null as never } },
        { schemaDialect: 'openai', strictResponseFormat: false },
        [],
      ),
    ).toThrow('request.responseFormat must be { type: "json", schema: <JSON Schema object> }');
  });
});
