import type { ChatWarning } from './chat-model.js';
import type { Message } from './message.js';
import { repairTranscript, validateTranscript } from './transcript.js';

/**
 * The transcript an adapter should send: the input itself when it is valid, otherwise its
 * `repairTranscript` version (every call answered by one result, results next to their calls and
 * in call order), with one `transcript-repaired` warning per fix. The input is not modified.
 */
export function prepareTranscript(input: readonly Message[]): {
  messages: readonly Message[];
  warnings: ChatWarning[];
} {
  if (validateTranscript(input).length === 0) return { messages: input, warnings: [] };
  const repair = repairTranscript(input);
  return {
    messages: repair.messages,
    warnings: repair.fixes.map((fix) => ({ type: 'transcript-repaired', message: fix })),
  };
}
