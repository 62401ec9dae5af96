// The live call log: finished calls (newest first) under the calls still running, each running
// one with its time so far and its latest progress; a running row gives way to its finished row
// (same `callId`) with the outcome the gateway recorded.
import type { CallEntry, RunningCall } from './api-types.js';
import { $, h } from './dom.js';
import { duration, outcomeLabel } from './format.js';

/** Finished rows kept on the page. */
const MAX_ROWS = 200;

/**
 * The tool cell: its name, and in a narrow layout (where those columns are hidden) who called and
 * where, shown under it by the stylesheet from `data-who`.
 */
function toolCell(call: { tool: string; client: string; upstream: string }): HTMLElement {
  return h('td', { class: 'tool', data: { who: `${call.client} · ${call.upstream}` } }, call.tool);
}

function finishedRow(call: CallEntry): HTMLTableRowElement {
  return h(
    'tr',
    { data: { callId: String(call.callId ?? '') } },
    h('td', {}, new Date(call.time).toLocaleTimeString()),
    toolCell(call),
    h('td', { class: 'wide-only' }, call.client),
    h('td', { class: 'wide-only' }, call.upstream),
    h('td', {}, duration(call.durationMs)),
    h(
      'td',
      { class: `o-${call.outcome}`, title: call.error ?? '', data: { outcome: call.outcome } },
      outcomeLabel(call.outcome),
    ),
  );
}

function progressText(call: RunningCall): string {
  const p = call.progress;
  if (!p) return '';
  const count = p.total ? `${p.progress}/${p.total}` : '';
  return [p.message, count].filter(Boolean).join(' · ');
}

function runningRow(call: RunningCall): HTMLTableRowElement {
  const progress = progressText(call);
  return h(
    'tr',
    { class: 'running', data: { callId: String(call.callId), running: 'true' } },
    h('td', {}, new Date(call.time).toLocaleTimeString()),
    toolCell(call),
    h('td', { class: 'wide-only' }, call.client),
    h('td', { class: 'wide-only' }, call.upstream),
    h('td', {}, duration(call.durationMs)),
    h(
      'td',
      { class: 'o-running', data: { outcome: 'running' } },
      outcomeLabel('running'),
      progress
        ? h('small', { class: 'progress-message', data: { testid: 'progress' } }, progress)
        : null,
    ),
  );
}

/**
 * Adds newly finished calls (oldest first, as the API lists them) and shows the running ones:
 * a call that finished replaces its running row.
 */
export function updateCallLog(
  finished: readonly CallEntry[],
  running: readonly RunningCall[],
): void {
  const rows = $('calls');
  for (const row of rows.querySelectorAll('tr[data-running]')) row.remove();
  for (const call of finished) rows.prepend(finishedRow(call));
  const done = new Set(finished.map((call) => call.callId).filter((id) => id !== undefined));
  rows.prepend(...running.filter((call) => !done.has(call.callId)).map((call) => runningRow(call)));
  const kept = rows.querySelectorAll('tr:not([data-running])');
  for (let i = MAX_ROWS; i < kept.length; i++) kept[i]!.remove();
}
