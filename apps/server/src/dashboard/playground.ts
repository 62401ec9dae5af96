import { apiJson, session } from './api.js';
import type { CodeRunResult } from './api-types.js';
import { $ } from './dom.js';
import { duration } from './format.js';

async function runCode(refresh: () => void): Promise<void> {
  $('code-status').textContent = 'running…';
  $<HTMLButtonElement>('run-code').disabled = true;
  try {
    const r = await apiJson<CodeRunResult>('/api/code', {
      code: $<HTMLTextAreaElement>('code').value,
      typecheck: 'error',
    });
    const typeErrors = r.error?.kind === 'typecheck';
    $('code-status').textContent =
      `${r.ok ? 'ok' : typeErrors ? 'type errors: not run' : 'failed'} in ${duration(r.durationMs)} · ${r.toolCalls.length} tool call(s)`;
    const logs = r.logs.map((l) => `[${l.level}] ${l.message}`).join('\n');
    const diagnostics = r.diagnostics
      .map((d) => `type error ${d.line ? `line ${d.line}: ` : ''}${d.message}`)
      .join('\n');
    const outcome = r.ok
      ? `return ${JSON.stringify(r.value, null, 2)}`
      : typeErrors
        ? 'The code was not run: fix the type errors above.'
        : `error (${r.error?.kind}): ${r.error?.message}`;
    $('code-output').textContent = [diagnostics, logs, outcome].filter(Boolean).join('\n\n');
    refresh();
  } catch (error) {
    $('code-status').textContent = '';
    $('code-output').textContent = (error as Error).message;
  } finally {
    $<HTMLButtonElement>('run-code').disabled = false;
  }
}

/** The code-mode playground: Run sends the code to `/api/code`; the declarations load when opened. */
export function setUpPlayground(refresh: () => void): void {
  $('run-code').addEventListener('click', () => void runCode(refresh));
  $('decl-box').addEventListener('toggle', () => {
    if (!$<HTMLDetailsElement>('decl-box').open) return;
    const headers: Record<string, string> = session.token
      ? { authorization: `Bearer ${session.token}` }
      : {};
    fetch('/api/declarations', { headers })
      .then(async (res) => {
        $('declarations').textContent = res.ok ? await res.text() : `HTTP ${res.status}`;
      })
      .catch((error: Error) => {
        $('declarations').textContent = error.message;
      });
  });
}
