import { api } from './api.js';
import type { ToolView } from './api-types.js';
import { $, h } from './dom.js';
import { REFUSED_CODES, duration, outcomeLabel } from './format.js';
import { collectArguments } from './tool-form.js';
import { renderResult, type CallAnswer } from './tool-result.js';

/** The call in flight, if any (the Cancel button aborts it). */
let running: AbortController | null = null;

export function cancelCall(): void {
  running?.abort();
}

function outcomeText(outcome: string, after: string): [HTMLElement, string] {
  return [h('span', { class: `o-${outcome}`, data: { outcome } }, outcomeLabel(outcome)), after];
}

/** Reads the newline-delimited JSON of a streamed call: progress lines, then its answer. */
async function readCallStream(
  res: Response,
  onProgress: (progress: { progress: number; total?: number; message?: string }) => void,
): Promise<CallAnswer | undefined> {
  if (!res.body) return undefined;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  let answer: CallAnswer | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let at: number;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffered.slice(0, at)) as {
        progress?: { progress: number; total?: number; message?: string };
        done?: CallAnswer;
      };
      buffered = buffered.slice(at + 1);
      if (line.progress) onProgress(line.progress);
      if (line.done) answer = line.done;
    }
  }
  return answer;
}

/**
 * Calls the tool with the form's arguments through `/api/call` (streamed: progress as it comes),
 * shows the outcome and the result; the Cancel button aborts it. `done` runs after either.
 */
export async function callTool(tool: ToolView, done: () => void): Promise<void> {
  let args: Record<string, unknown>;
  try {
    args = collectArguments(tool);
  } catch (error) {
    $('call-result').textContent = `Bad input: ${(error as Error).message}`;
    return;
  }
  const status = $('call-status');
  const progress = $<HTMLProgressElement>('call-progress');
  const cancel = $('cancel-call');
  const started = performance.now();
  const controller = new AbortController();
  running = controller;
  cancel.hidden = false;
  progress.hidden = false;
  progress.removeAttribute('value');
  const tick = setInterval(() => {
    status.textContent = `running… ${duration(performance.now() - started)}`;
  }, 200);
  status.textContent = 'running…';
  $('call-result').replaceChildren();
  try {
    const res = await api(
      '/api/call',
      { name: tool.name, arguments: args, stream: true },
      controller.signal,
    );
    const answer = await readCallStream(res, (p) => {
      if (p.total) {
        progress.max = p.total;
        progress.value = p.progress;
      }
      if (p.message) status.dataset.message = p.message;
    });
    const outcome = !answer
      ? 'error'
      : answer.ok
        ? answer.result.isError
          ? 'tool_error'
          : 'ok'
        : REFUSED_CODES.includes(answer.error.code)
          ? 'refused'
          : 'error';
    status.replaceChildren(...outcomeText(outcome, ` in ${duration(performance.now() - started)}`));
    if (answer) renderResult($('call-result'), answer);
  } catch (error) {
    if (controller.signal.aborted)
      status.replaceChildren(
        ...outcomeText('cancelled', ` after ${duration(performance.now() - started)}`),
      );
    else {
      status.textContent = '';
      $('call-result').textContent = (error as Error).message;
    }
  } finally {
    clearInterval(tick);
    cancel.hidden = true;
    progress.hidden = true;
    running = null;
    done();
  }
}
