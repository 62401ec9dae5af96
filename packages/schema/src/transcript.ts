import type { AssistantMessage, Message, ToolMessage } from './message.js';
import { cancelledResult } from './tool-result.js';
import type { ToolResult } from './tool-result.js';

export type TranscriptIssueKind =
  | 'missing-result'
  | 'orphan-result'
  | 'result-out-of-order'
  | 'results-not-adjacent'
  | 'duplicate-call-id'
  | 'duplicate-result';

export interface TranscriptIssue {
  kind: TranscriptIssueKind;
  /** Index of the message where the problem is. */
  messageIndex: number;
  toolCallId: string;
  message: string;
}

/**
 * Finds what providers reject in a transcript: a tool call without its result, results not
 * directly after the assistant turn that made the calls, results out of call order, results for
 * calls nobody made (orphans, typically after a cancelled turn) and duplicate ids.
 */
export function validateTranscript(messages: readonly Message[]): TranscriptIssue[] {
  const issues: TranscriptIssue[] = [];
  const seenCallIds = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      for (const call of message.toolCalls) {
        if (seenCallIds.has(call.id)) {
          issues.push({
            kind: 'duplicate-call-id',
            messageIndex: i,
            toolCallId: call.id,
            message: `tool call id "${call.id}" is used twice`,
          });
        }
        seenCallIds.add(call.id);
      }
      const next = messages[i + 1];
      const results = next?.role === 'tool' ? next.results : [];
      const resultIds = results.map((r) => r.toolCallId);
      for (const call of message.toolCalls) {
        if (!resultIds.includes(call.id)) {
          const laterIndex = messages.findIndex(
            (m, j) =>
              j > i + 1 && m.role === 'tool' && m.results.some((r) => r.toolCallId === call.id),
          );
          issues.push(
            laterIndex >= 0
              ? {
                  kind: 'results-not-adjacent',
                  messageIndex: laterIndex,
                  toolCallId: call.id,
                  message: `the result of "${call.id}" (${call.name}) does not directly follow its call`,
                }
              : {
                  kind: 'missing-result',
                  messageIndex: i,
                  toolCallId: call.id,
                  message: `tool call "${call.id}" (${call.name}) has no result`,
                },
          );
        }
      }
      const expectedOrder = message.toolCalls
        .map((c) => c.id)
        .filter((id) => resultIds.includes(id));
      const actualOrder = resultIds.filter((id) => expectedOrder.includes(id));
      const firstMismatch = actualOrder.findIndex((id, k) => id !== expectedOrder[k]);
      if (firstMismatch >= 0 && new Set(actualOrder).size === actualOrder.length) {
        issues.push({
          kind: 'result-out-of-order',
          messageIndex: i + 1,
          toolCallId: actualOrder[firstMismatch]!,
          message: 'tool results are not in the order of the calls',
        });
      }
    }
    if (message.role === 'tool') {
      const previous = messages[i - 1];
      const callIds =
        previous?.role === 'assistant' ? (previous.toolCalls ?? []).map((c) => c.id) : [];
      const seenResults = new Set<string>();
      for (const result of message.results) {
        if (seenResults.has(result.toolCallId)) {
          issues.push({
            kind: 'duplicate-result',
            messageIndex: i,
            toolCallId: result.toolCallId,
            message: `two results for "${result.toolCallId}"`,
          });
        }
        seenResults.add(result.toolCallId);
        if (
          !callIds.includes(result.toolCallId) &&
          !issues.some(
            (x) => x.kind === 'results-not-adjacent' && x.toolCallId === result.toolCallId,
          )
        ) {
          issues.push({
            kind: 'orphan-result',
            messageIndex: i,
            toolCallId: result.toolCallId,
            message: `result for "${result.toolCallId}" answers no call of the turn before it`,
          });
        }
      }
    }
  }
  return issues;
}

export interface TranscriptRepair {
  messages: Message[];
  /** What was changed, one line each. */
  fixes: string[];
}

/**
 * Returns a transcript every provider accepts: each assistant turn with tool calls is followed by
 * exactly one tool message with one result per call, in call order. Missing results become
 * explicit "cancelled" results, results that sit elsewhere are moved back next to their call,
 * and orphan and duplicate results are dropped. The input is not modified.
 */
export function repairTranscript(messages: readonly Message[]): TranscriptRepair {
  const fixes: string[] = [];
  // Every result in the transcript, by call id (first one wins).
  const resultsById = new Map<string, ToolResult>();
  const callIds = new Set<string>();
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const call of message.toolCalls ?? []) callIds.add(call.id);
    if (message.role === 'tool') {
      for (const result of message.results) {
        if (resultsById.has(result.toolCallId))
          fixes.push(`dropped a duplicate result for "${result.toolCallId}"`);
        else resultsById.set(result.toolCallId, result);
      }
    }
  }
  const out: Message[] = [];
  const placed = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === 'tool') {
      for (const result of message.results) {
        if (!callIds.has(result.toolCallId))
          fixes.push(`dropped orphan result "${result.toolCallId}" (${result.toolName})`);
      }
      // Answers to the provider's approval requests stay right after the turn that asked.
      if (message.approvals && message.approvals.length > 0) {
        const last = out.at(-1);
        if (last?.role === 'tool')
          last.approvals = [...(last.approvals ?? []), ...message.approvals];
        else out.push({ role: 'tool', results: [], approvals: message.approvals });
      }
      continue; // results are re-emitted next to their assistant turn below
    }
    out.push(message);
    if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
      const results: ToolResult[] = [];
      for (const call of message.toolCalls) {
        if (placed.has(call.id)) continue;
        placed.add(call.id);
        const found = resultsById.get(call.id);
        if (found) {
          const next = messages[i + 1];
          if (!(next?.role === 'tool' && next.results.some((r) => r.toolCallId === call.id))) {
            fixes.push(`moved the result of "${call.id}" next to its call`);
          }
          results.push(found);
        } else {
          fixes.push(`added a cancelled result for "${call.id}" (${call.name})`);
          results.push(cancelledResult(call.id, call.name));
        }
      }
      const next = messages[i + 1];
      if (next?.role === 'tool') {
        const original = next.results
          .filter((r) => callIds.has(r.toolCallId))
          .map((r) => r.toolCallId);
        const wanted = results.map((r) => r.toolCallId).filter((id) => original.includes(id));
        if (original.join('\n') !== wanted.join('\n') && new Set(original).size === original.length)
          fixes.push('put tool results in call order');
      }
      const toolMessage: ToolMessage = { role: 'tool', results };
      out.push(toolMessage);
    }
  }
  return { messages: out, fixes };
}

/** The tool calls of the last assistant turn that have no result yet. */
export function pendingToolCalls(
  messages: readonly Message[],
): NonNullable<AssistantMessage['toolCalls']> {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'assistant') {
      const answered = new Set(
        messages
          .slice(i + 1)
          .flatMap((m) => (m.role === 'tool' ? m.results.map((r) => r.toolCallId) : [])),
      );
      return (message.toolCalls ?? []).filter((call) => !answered.has(call.id));
    }
  }
  return [];
}
