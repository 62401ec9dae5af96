import { describe, expect, it } from 'vitest';
import { Conversation } from './conversation.js';
import type { Message } from './message.js';
import { textResult } from './tool-result.js';
import { pendingToolCalls, repairTranscript, validateTranscript } from './transcript.js';

const call = (id: string, name = 'get_weather') => ({ id, name, arguments: '{}' });
const user = (content: string): Message => ({ role: 'user', content });

describe('validateTranscript', () => {
  it('accepts a well-formed tool turn', () => {
    const messages: Message[] = [
      user('weather in Boston and Paris?'),
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      {
        role: 'tool',
        results: [textResult('a', 'get_weather', '21C'), textResult('b', 'get_weather', '18C')],
      },
      { role: 'assistant', content: 'Boston 21C, Paris 18C' },
    ];
    expect(validateTranscript(messages)).toEqual([]);
  });

  it('finds a call without its result (a cancelled parallel batch)', () => {
    const messages: Message[] = [
      user('two things'),
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      { role: 'tool', results: [textResult('a', 'get_weather', 'ok')] },
    ];
    expect(validateTranscript(messages)).toEqual([
      expect.objectContaining({ kind: 'missing-result', toolCallId: 'b', messageIndex: 1 }),
    ]);
  });

  it('finds results out of call order', () => {
    const messages: Message[] = [
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      {
        role: 'tool',
        results: [textResult('b', 'get_weather', '2'), textResult('a', 'get_weather', '1')],
      },
    ];
    expect(validateTranscript(messages).map((i) => i.kind)).toEqual(['result-out-of-order']);
  });

  it('finds orphan results after an aborted turn and results that are not adjacent', () => {
    const messages: Message[] = [
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      user('never mind'),
      {
        role: 'tool',
        results: [textResult('a', 'get_weather', 'late'), textResult('zombie', 'x', '?')],
      },
    ];
    const kinds = validateTranscript(messages).map((i) => `${i.kind}:${i.toolCallId}`);
    expect(kinds).toEqual(['results-not-adjacent:a', 'orphan-result:zombie']);
  });

  it('finds duplicate call ids and duplicate results', () => {
    const messages: Message[] = [
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      {
        role: 'tool',
        results: [textResult('a', 'get_weather', '1'), textResult('a', 'get_weather', '1')],
      },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      { role: 'tool', results: [textResult('a', 'get_weather', '1')] },
    ];
    const kinds = validateTranscript(messages).map((i) => i.kind);
    expect(kinds).toContain('duplicate-result');
    expect(kinds).toContain('duplicate-call-id');
  });
});

describe('repairTranscript', () => {
  it('keeps the answers to provider approval requests right after the turn that asked', () => {
    const approvals = [{ approvalRequestId: 'mcpr_1', approved: true }];
    const messages: Message[] = [
      user('go'),
      { role: 'assistant', content: 'needs approval' },
      { role: 'tool', results: [], approvals },
      { role: 'assistant', content: 'calling', toolCalls: [call('a')] },
      { role: 'tool', results: [], approvals },
    ];
    expect(validateTranscript(messages.slice(0, 3))).toEqual([]);
    const { messages: fixed } = repairTranscript(messages);
    expect(fixed[2]).toEqual({ role: 'tool', results: [], approvals });
    expect(fixed[4]).toEqual({
      role: 'tool',
      results: [expect.objectContaining({ toolCallId: 'a', isError: true })],
      approvals,
    });
  });

  it('inserts explicit cancelled results for calls that never got one', () => {
    const messages: Message[] = [
      user('go'),
      { role: 'assistant', content: 'calling', toolCalls: [call('a'), call('b', 'search')] },
      user('stop, new question'),
    ];
    const { messages: fixed, fixes } = repairTranscript(messages);
    expect(fixed[2]).toEqual({
      role: 'tool',
      results: [
        expect.objectContaining({
          toolCallId: 'a',
          isError: true,
          error: expect.objectContaining({ category: 'cancelled' }),
        }),
        expect.objectContaining({ toolCallId: 'b', toolName: 'search', isError: true }),
      ],
    });
    expect(fixed[3]).toEqual(user('stop, new question'));
    expect(fixes).toEqual([
      'added a cancelled result for "a" (get_weather)',
      'added a cancelled result for "b" (search)',
    ]);
    expect(validateTranscript(fixed)).toEqual([]);
  });

  it('reorders, moves back and de-duplicates results, and drops orphans', () => {
    const messages: Message[] = [
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      {
        role: 'tool',
        results: [textResult('b', 'get_weather', '2'), textResult('orphan', 'x', '?')],
      },
      user('hm'),
      {
        role: 'tool',
        results: [textResult('a', 'get_weather', '1'), textResult('b', 'get_weather', 'dup')],
      },
    ];
    const { messages: fixed, fixes } = repairTranscript(messages);
    expect(fixed).toHaveLength(3);
    expect(
      (fixed[1] as { results: { toolCallId: string; content: unknown }[] }).results.map(
        (r) => r.toolCallId,
      ),
    ).toEqual(['a', 'b']);
    expect(validateTranscript(fixed)).toEqual([]);
    expect(fixes).toEqual(
      expect.arrayContaining([
        'dropped orphan result "orphan" (x)',
        'moved the result of "a" next to its call',
        'dropped a duplicate result for "b"',
      ]),
    );
    // the input is untouched
    expect(messages[1]).toEqual({
      role: 'tool',
      results: [textResult('b', 'get_weather', '2'), textResult('orphan', 'x', '?')],
    });
  });

  it('leaves a valid transcript unchanged', () => {
    const messages: Message[] = [user('hi'), { role: 'assistant', content: 'hello' }];
    expect(repairTranscript(messages)).toEqual({ messages, fixes: [] });
  });
});

describe('Conversation', () => {
  it('tracks whether tool execution is required (seed 001 requiresToolExecution)', () => {
    const conversation = new Conversation({ system: 'be brief', tools: [] }).addUserMessage(
      'weather?',
    );
    expect(conversation.requiresToolExecution).toBe(false);
    conversation.addAssistantResponse({ text: '', toolCalls: [call('a'), call('b')] });
    expect(conversation.requiresToolExecution).toBe(true);
    conversation.addToolResults([textResult('b', 'get_weather', '2')]);
    expect(conversation.pendingToolCalls.map((c) => c.id)).toEqual(['a']);
    conversation.addToolResults([textResult('a', 'get_weather', '1')]);
    expect(conversation.requiresToolExecution).toBe(false);
    expect(conversation.messages[0]).toEqual({ role: 'system', content: 'be brief' });
    expect(conversation.validate()).toEqual([
      {
        kind: 'result-out-of-order',
        messageIndex: 2,
        toolCallId: 'b',
        message: 'tool results are not in the order of the calls',
      },
    ]);
    expect(conversation.repair()).toEqual(['put tool results in call order']);
    expect(conversation.validate()).toEqual([]);
  });

  it('sorts results given together into call order', () => {
    const conversation = new Conversation().addAssistantResponse({
      text: '',
      toolCalls: [call('a'), call('b')],
    });
    conversation.addToolResults([textResult('b', 'x', '2'), textResult('a', 'x', '1')]);
    expect(conversation.validate()).toEqual([]);
    expect(pendingToolCalls(conversation.messages)).toEqual([]);
  });
});
