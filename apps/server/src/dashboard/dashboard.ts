// The dashboard's script, served as /dashboard.js (built from this file) under `script-src 'self'`.
// The page holds no data itself: everything comes from `/api/*` with the bearer token the user
// enters. Every element is built with the DOM (text as text), never from HTML strings.
import { h, type Child } from './dom.js';
import { addItem, argumentField, collectArguments, isObjectArray } from './tool-form.js';
import { renderResult, type CallAnswer } from './tool-result.js';
import type { Overview, ToolView, CallEntry, CodeRunResult } from './api-types.js';

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

let token = sessionStorage.getItem('toolwire-token') ?? '';
let tools: ToolView[] = [];
let selected: string | null = null;
let lastSeq = 0;
let signedIn = false;
let authRequired = false;
let running: AbortController | null = null;

// One set of words for outcomes: the call panel, the log and the metrics all use these.
const OUTCOMES: Record<string, string> = {
  ok: 'ok',
  cached: 'cached',
  tool_error: 'tool error',
  refused: 'refused',
  error: 'error',
  cancelled: 'cancelled',
};
const outcomeLabel = (outcome: string): string => OUTCOMES[outcome] ?? outcome;
// Policy, rate limit and invalid arguments: the gateway refused the call (as its audit log says).
const REFUSED_CODES = [-32003, -32029, -32602];

/** 0.4 ms, 12 ms, 1.3 s, 2 min 5 s, 3 h 4 min. */
function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** What `api` throws after a 401 (the sign-in form is showing by then). */
const UNAUTHORIZED = 'unauthorized';

async function api(path: string, body?: unknown, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  });
  if (res.status === 401) {
    needToken();
    throw new Error(UNAUTHORIZED);
  }
  return res;
}

/** A JSON answer of the API; an error status throws its message. */
async function apiJson<T>(path: string, body?: unknown): Promise<T> {
  const res = await api(path, body);
  const data = (await res.json()) as T & { error?: { message?: string } };
  if (!res.ok) throw new Error(data.error?.message ?? res.statusText);
  return data;
}

function needToken(): void {
  const refused = signedIn || token !== '';
  signedIn = false;
  authRequired = true;
  $('auth').style.display = 'flex';
  $('signed-in').style.display = 'none';
  $('gw-meta').textContent = 'this gateway needs a bearer token';
  $('auth-error').textContent = token
    ? 'That token was refused: check auth.tokens in the gateway config.'
    : '';
  if (refused) clearData();
}

function clearData(): void {
  tools = [];
  selected = null;
  lastSeq = 0;
  $('calls').replaceChildren();
  $('servers').replaceChildren();
  $('metrics').replaceChildren();
  renderTools();
  renderDetail();
  renderEmpty();
}

$('auth').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $<HTMLInputElement>('token').value.trim();
  if (!token) {
    $('auth-error').textContent = 'Enter a token first.';
    return;
  }
  sessionStorage.setItem('toolwire-token', token);
  $('auth-error').textContent = 'checking…';
  lastSeq = 0;
  $('calls').replaceChildren();
  void refresh();
});

$('sign-out').addEventListener('click', () => {
  token = '';
  sessionStorage.removeItem('toolwire-token');
  $<HTMLInputElement>('token').value = '';
  signedIn = false;
  clearData();
  needToken();
  $('auth-error').textContent = 'Signed out.';
});

function renderConnect(): void {
  const url = `${location.origin}/mcp`;
  $('mcp-url').textContent = url;
  const auth = authRequired ? 'Bearer <your token>' : null;
  const claude = {
    mcpServers: {
      toolwire: {
        command: 'npx',
        args: ['-y', 'mcp-remote', url, ...(auth ? ['--header', `Authorization:${auth}`] : [])],
      },
    },
  };
  const cursor = {
    mcpServers: { toolwire: { url, ...(auth ? { headers: { Authorization: auth } } : {}) } },
  };
  $('snippet-claude').textContent = JSON.stringify(claude, null, 2);
  $('snippet-cursor').textContent = JSON.stringify(cursor, null, 2);
}

$('copy-url').addEventListener('click', () => {
  const url = $('mcp-url').textContent ?? '';
  navigator.clipboard.writeText(url).then(
    () => {
      $('copy-status').textContent = 'Copied';
    },
    () => {
      // No clipboard (plain http on a non-local host): select the text for Ctrl-C instead.
      const range = document.createRange();
      range.selectNodeContents($('mcp-url'));
      const selection = getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
      $('copy-status').textContent = 'Selected: press Ctrl-C to copy';
    },
  );
});

function renderOverview(overview: Overview): void {
  const { gateway, metrics: m } = overview;
  signedIn = true;
  authRequired = gateway.auth;
  $('auth').style.display = 'none';
  $('auth-error').textContent = '';
  $('signed-in').style.display = gateway.auth ? 'flex' : 'none';
  $('gw-meta').textContent =
    `v${gateway.version} · up ${duration(gateway.uptimeSeconds * 1000)}` +
    (gateway.client ? ` · client ${gateway.client}` : '') +
    (gateway.redis ? ' · redis' : '') +
    (gateway.chatModel ? ` · chat model ${gateway.chatModel}` : '');
  renderConnect();
  const cards: Array<[string, Child]> = [
    ['Calls', m.calls],
    [outcomeLabel('ok'), m.ok],
    [outcomeLabel('cached'), m.cached],
    [outcomeLabel('tool_error'), m.toolErrors],
    [outcomeLabel('error'), m.errors],
    [outcomeLabel('refused'), m.refused],
    ['p50', m.calls ? duration(m.p50) : '–'],
    ['p95', m.calls ? duration(m.p95) : '–'],
    ['Tools', overview.tools.length],
    ['Upstreams', overview.servers.length],
  ];
  $('metrics').replaceChildren(
    ...cards.map(([label, value]) =>
      h('div', { class: 'card' }, h('b', {}, value), h('span', {}, label)),
    ),
  );
  const rows = overview.servers.map((s) =>
    h(
      'tr',
      {},
      h('td', {}, s.name),
      h('td', {}, h('span', { class: `dot s-${s.status}` }), s.status),
      h('td', {}, s.tools),
      h(
        'td',
        {},
        s.transport,
        s.protocolVersion ? ` · ${s.protocolVersion}` : '',
        s.protocolKnown === false
          ? h(
              'span',
              { class: 'warn', title: 'a protocol revision this gateway does not know' },
              ' ⚠ unknown revision',
            )
          : null,
      ),
      h('td', {}, s.restarts),
      h('td', { class: 'muted' }, s.reason ?? ''),
    ),
  );
  $('servers').replaceChildren(
    ...(rows.length > 0
      ? rows
      : [
          h(
            'tr',
            {},
            h(
              'td',
              { colspan: '6', class: 'muted' },
              'No MCP servers configured (native tools only).',
            ),
          ),
        ]),
  );
  const names = JSON.stringify(tools.map((t) => t.name + t.status));
  tools = overview.tools;
  if (names !== JSON.stringify(tools.map((t) => t.name + t.status))) renderTools();
}

function renderTools(): void {
  const query = $<HTMLInputElement>('filter').value.toLowerCase();
  const shown = tools.filter(
    (t) =>
      !query || t.name.toLowerCase().includes(query) || t.description.toLowerCase().includes(query),
  );
  $('tool-count').textContent = tools.length ? `(${tools.length})` : '';
  const active = document.activeElement;
  const focused = active instanceof HTMLElement ? active.dataset.tool : undefined;
  $('tool-list').replaceChildren(
    ...shown.map((t) =>
      h(
        'li',
        {
          role: 'option',
          tabindex: '0',
          'aria-selected': String(selected === t.name),
          class: selected === t.name ? 'sel' : '',
          data: { tool: t.name },
        },
        h('span', {}, h('span', { class: `dot s-${t.status}` }), t.name),
        h('small', {}, t.source),
      ),
    ),
  );
  if (focused) {
    const again = $('tool-list').querySelector<HTMLElement>(
      `li[data-tool="${CSS.escape(focused)}"]`,
    );
    again?.focus();
  }
}

function selectTool(name: string): void {
  selected = name;
  renderTools();
  renderDetail();
}

$('filter').addEventListener('input', renderTools);
$('tool-list').addEventListener('click', (event) => {
  const li = (event.target as Element).closest<HTMLElement>('li[data-tool]');
  if (li?.dataset.tool) selectTool(li.dataset.tool);
});
// Keyboard: arrows move through the list, Enter or Space picks the tool (and moves to its form).
$('tool-list').addEventListener('keydown', (event) => {
  const li = (event.target as Element).closest<HTMLElement>('li[data-tool]');
  if (!li) return;
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    const next = event.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling;
    if (next instanceof HTMLElement) next.focus();
  } else if (event.key === 'Enter' || event.key === ' ') {
    event.preventDefault();
    if (li.dataset.tool) selectTool(li.dataset.tool);
    $('tool-detail').querySelector<HTMLElement>('input, select, textarea, button')?.focus();
  }
});
$('filter').addEventListener('keydown', (event) => {
  if (event.key !== 'ArrowDown') return;
  const first = $('tool-list').querySelector('li');
  if (first) {
    event.preventDefault();
    first.focus();
  }
});

function renderDetail(): void {
  const tool = tools.find((t) => t.name === selected);
  if (!tool) {
    $('tool-detail').replaceChildren(
      h(
        'span',
        { class: 'muted' },
        'Pick a tool on the left (or focus the list and use the arrow keys and Enter).',
      ),
    );
    return;
  }
  const properties = tool.inputSchema.properties ?? {};
  const required = tool.inputSchema.required ?? [];
  const form = h(
    'form',
    { id: 'call-form' },
    ...Object.entries(properties).flatMap(([name, schema]) =>
      argumentField(name, schema, required.includes(name)),
    ),
    h(
      'div',
      { class: 'row wrap' },
      h('button', { type: 'submit', data: { testid: 'call-button' } }, `Call ${tool.name}`),
      h(
        'button',
        {
          type: 'button',
          class: 'secondary',
          id: 'cancel-call',
          hidden: true,
          data: { testid: 'cancel-call' },
        },
        'Cancel',
      ),
      h('progress', { id: 'call-progress', hidden: true, data: { testid: 'call-progress' } }),
      h('span', {
        class: 'muted',
        id: 'call-status',
        role: 'status',
        data: { testid: 'call-status' },
      }),
    ),
  );
  $('tool-detail').replaceChildren(
    h(
      'div',
      {},
      h('b', {}, tool.name),
      ' ',
      h(
        'span',
        { class: 'muted' },
        `from ${tool.source}`,
        tool.originalName !== tool.name ? ` as ${tool.originalName}` : '',
      ),
    ),
    h('p', {}, tool.description),
    form,
    h('div', { class: 'result', id: 'call-result', data: { testid: 'call-result' } }),
    h(
      'details',
      {},
      h('summary', { class: 'muted' }, 'Input schema'),
      h('pre', { data: { testid: 'tool-schema' } }, JSON.stringify(tool.inputSchema, null, 2)),
    ),
  );
  form.addEventListener('submit', (event) => void callSelected(event));
  form.addEventListener('click', (event) => {
    const target = event.target as Element;
    const add = target.closest<HTMLElement>('.add-item');
    if (add?.dataset.for) addItem(tool, add.dataset.for);
    target.closest('.remove-item')?.closest('fieldset')?.remove();
  });
  $('cancel-call').addEventListener('click', () => running?.abort());
  for (const [name, schema] of Object.entries(properties))
    if (isObjectArray(schema) && required.includes(name)) addItem(tool, name);
}

function outcomeText(outcome: string, after: string): [HTMLElement, string] {
  return [
    h(
      'span',
      { class: `o-${outcome === 'cancelled' ? 'error' : outcome}`, data: { outcome } },
      outcomeLabel(outcome),
    ),
    after,
  ];
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

async function callSelected(event: Event): Promise<void> {
  event.preventDefault();
  const tool = tools.find((t) => t.name === selected);
  if (!tool) return;
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
  const controller = (running = new AbortController());
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
    void refresh();
  }
}

function renderEmpty(): void {
  $('calls-empty').hidden = $('calls').children.length > 0;
}

async function pollCalls(): Promise<void> {
  if (!signedIn) return;
  try {
    const { calls } = await apiJson<{ calls: CallEntry[] }>(`/api/calls?after=${lastSeq}`);
    for (const call of calls) {
      // Two polls can overlap (the timer and refresh()): each call is shown once.
      if (call.seq <= lastSeq) continue;
      lastSeq = call.seq;
      $('calls').prepend(
        h(
          'tr',
          {},
          h('td', {}, new Date(call.time).toLocaleTimeString()),
          h('td', {}, call.tool),
          h('td', {}, call.client),
          h('td', {}, call.upstream),
          h('td', {}, duration(call.durationMs)),
          h(
            'td',
            {
              class: `o-${call.outcome}`,
              title: call.error ?? '',
              data: { outcome: call.outcome },
            },
            outcomeLabel(call.outcome),
          ),
        ),
      );
    }
    const rows = $('calls');
    while (rows.children.length > 200) rows.lastElementChild?.remove();
    renderEmpty();
  } catch {
    // The next poll tries again; a refused token already showed the sign-in form.
  }
}

$('run-code').addEventListener('click', () => void runCode());

async function runCode(): Promise<void> {
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
    void refresh();
  } catch (error) {
    $('code-status').textContent = '';
    $('code-output').textContent = (error as Error).message;
  } finally {
    $<HTMLButtonElement>('run-code').disabled = false;
  }
}

$('decl-box').addEventListener('toggle', () => {
  if (!$<HTMLDetailsElement>('decl-box').open) return;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  fetch('/api/declarations', { headers })
    .then(async (res) => {
      $('declarations').textContent = res.ok ? await res.text() : `HTTP ${res.status}`;
    })
    .catch((error: Error) => {
      $('declarations').textContent = error.message;
    });
});

async function refresh(): Promise<void> {
  try {
    renderOverview(await apiJson<Overview>('/api/overview'));
    await pollCalls();
  } catch (error) {
    if ((error as Error).message !== UNAUTHORIZED)
      $('gw-meta').textContent = `gateway unreachable: ${(error as Error).message}`;
  }
}

renderConnect();
renderEmpty();
void refresh();
setInterval(() => void refresh(), 2000);
setInterval(() => void pollCalls(), 1000);
