import { describe, expect, it } from 'vitest';
import type { Message } from './message.js';
import { prepareTranscript } from './prepare-transcript.js';
import { textResult } from './tool-result.js';
import { validateTranscript } from './transcript.js';

const call = (id: string) => ({ id, name: 'lookup', arguments: {} });

describe('prepareTranscript', () => {
  it('returns a valid transcript as it is, without warnings', () => {
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [call('a')] },
      { role: 'tool', results: [textResult('a', 'lookup', 'ok')] },
    ];
    const prepared = prepareTranscript(messages);
    expect(prepared.messages).toBe(messages);
    expect(prepared.warnings).toEqual([]);
  });

  it('repairs an invalid transcript and reports each fix as a transcript-repaired warning', () => {
    const messages: Message[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [call('a'), call('b')] },
      {
        role: 'tool',
        results: [textResult('b', 'lookup', 'second'), textResult('a', 'lookup', 'first')],
      },
      { role: 'assistant', content: '', toolCalls: [call('c')] },
    ];
    const prepared = prepareTranscript(messages);
    expect(validateTranscript(prepared.messages)).toEqual([]);
    const tool = prepared.messages[2];
    expect(tool?.role === 'tool' && tool.results.map((r) => r.toolCallId)).toEqual(['a', 'b']);
    expect(prepared.warnings.length).toBeGreaterThanOrEqual(2);
    for (const warning of prepared.warnings) {
      expect(warning.type).toBe('transcript-repaired');
      expect(warning.message).not.toBe('');
    }
    expect(messages[2]?.role === 'tool' && messages[2].results[0]?.toolCallId).toBe('b');
  });
});
