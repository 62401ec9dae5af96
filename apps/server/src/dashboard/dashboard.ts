// The dashboard's script, served as /dashboard.js (built from this file) under `script-src 'self'`.
// The page holds no data itself: everything comes from `/api/*` with the bearer token the user
// enters. Every element is built with the DOM (text as text), never from HTML strings.
import { UNAUTHORIZED, apiJson, session } from './api.js';
import type { CallEntry, Overview, RunningCall, ToolView } from './api-types.js';
import { updateCallLog } from './call-log-view.js';
import { callTool, cancelCall } from './call-panel.js';
import { $, h, type Child } from './dom.js';
import { duration, outcomeLabel } from './format.js';
import { refreshPins } from './pins-panel.js';
import { setUpPlayground } from './playground.js';
import { addItem, argumentField, isObjectArray } from './tool-form.js';

let tools: ToolView[] = [];
let selected: string | null = null;
let lastSeq = 0;
let signedIn = false;
let authRequired = false;
/** The gateway has auth.jwt: MCP clients sign in at the issuer by themselves (OAuth). */
let oauthAvailable = false;

function needToken(): void {
  const refused = signedIn || session.token !== '';
  signedIn = false;
  authRequired = true;
  $('auth').style.display = 'flex';
  $('signed-in').style.display = 'none';
  $('gw-meta').textContent = 'this gateway needs a bearer token';
  $('auth-error').textContent = session.token
    ? 'That token was refused (expired, or not one of auth.tokens): sign in again.'
    : '';
  if (refused) clearData();
  // Client snippets carry the Authorization header a client of this gateway needs.
  renderConnect();
  renderSignedOut();
}

/** What the empty panels say while nobody is signed in to a gateway that needs a token. */
function renderSignedOut(): void {
  const hint = (what: string) => `Sign in with a bearer token (top right) to see ${what}.`;
  $('tool-list').replaceChildren(
    h('li', { class: 'empty', data: { testid: 'tools-empty' } }, hint('the tools')),
  );
  $('tool-count').textContent = '';
  $('servers').replaceChildren(
    h('tr', {}, h('td', { colspan: '6', class: 'muted' }, hint('the upstreams'))),
  );
  $('metrics').replaceChildren(h('p', { class: 'muted' }, hint("the gateway's metrics")));
  $('no-calls-text').textContent = hint('the calls made through this gateway');
  $('code-status').textContent = 'Sign in to run code.';
  renderEmpty();
}

/**
 * A sign-in at the issuer ends on `/` with the access token in a one-minute cookie: it moves to
 * this tab's session storage, like a pasted token, and the cookie is dropped at once.
 */
function takeSignedInToken(): void {
  const match = /(?:^|;\s*)toolwire_token=([^;]+)/.exec(document.cookie);
  if (!match) return;
  document.cookie = 'toolwire_token=; Path=/; Max-Age=0; SameSite=Strict';
  session.token = match[1]!;
  sessionStorage.setItem('toolwire-token', session.token);
}

/** With auth.jwt, the page offers sign-in at the issuer (its protected-resource metadata says so). */
async function offerIssuerSignIn(): Promise<void> {
  const response = await fetch('/.well-known/oauth-protected-resource').catch(() => undefined);
  if (!response?.ok) return;
  const metadata = (await response.json()) as { authorization_servers?: string[] };
  const issuer = metadata.authorization_servers?.[0];
  if (!issuer) return;
  const link = $<HTMLAnchorElement>('issuer-sign-in');
  link.textContent = `Sign in at ${new URL(issuer).host}`;
  link.hidden = false;
  oauthAvailable = true;
  renderConnect();
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
  session.token = $<HTMLInputElement>('token').value.trim();
  if (!session.token) {
    $('auth-error').textContent = 'Enter a token first.';
    return;
  }
  sessionStorage.setItem('toolwire-token', session.token);
  $('auth-error').textContent = 'checking…';
  lastSeq = 0;
  $('calls').replaceChildren();
  void refresh();
});

$('sign-out').addEventListener('click', () => {
  session.token = '';
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
  // With auth.jwt the clients find the issuer from the gateway's 401 and sign in themselves.
  const auth = authRequired && !oauthAvailable ? 'Bearer <your token>' : null;
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
  if (!signedIn) {
    $('no-calls-text').textContent =
      'No calls yet: call a tool above, or connect an MCP client to the endpoint shown above.';
    if ($('code-status').textContent === 'Sign in to run code.') $('code-status').textContent = '';
  }
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
    [outcomeLabel('cancelled'), m.cancelled],
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
        { class: 'wide-only' },
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
      h('td', { class: 'wide-only' }, s.restarts),
      h('td', { class: 'muted reason' }, s.reason ?? ''),
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
  if (gateway.admin) void refreshPins().catch(() => {});
  else $('pins-section').hidden = true;
  const names = JSON.stringify(tools.map((t) => t.name + t.status));
  const first = tools.length === 0;
  tools = overview.tools;
  if (first || names !== JSON.stringify(tools.map((t) => t.name + t.status))) renderTools();
  renderSandbox(gateway.sandbox);
}

/** The playground's sandbox: the gateway starts it once the page is open, before the first run. */
function renderSandbox(state: Overview['gateway']['sandbox']): void {
  const words = {
    cold: 'starting the sandbox…',
    warming: 'starting the sandbox…',
    ready: 'sandbox ready',
    failed: 'the sandbox did not start; Run starts it',
  };
  const status = $('sandbox-status');
  status.textContent = words[state] ?? '';
  status.dataset.state = state;
}

function renderTools(): void {
  const query = $<HTMLInputElement>('filter').value.toLowerCase();
  const shown = tools.filter(
    (t) =>
      !query || t.name.toLowerCase().includes(query) || t.description.toLowerCase().includes(query),
  );
  $('tool-count').textContent = !tools.length
    ? ''
    : query
      ? `(${shown.length} of ${tools.length})`
      : `(${tools.length})`;
  const active = document.activeElement;
  const focused = active instanceof HTMLElement ? active.dataset.tool : undefined;
  if (shown.length === 0) {
    $('tool-list').replaceChildren(
      h(
        'li',
        { class: 'empty', data: { testid: 'tools-empty' } },
        !signedIn && authRequired
          ? 'Sign in with a bearer token (top right) to see the tools.'
          : query
            ? `No tools match “${$<HTMLInputElement>('filter').value}”: change or clear the filter.`
            : 'No tools: add MCP servers (mcpServers) or nativeTools to the gateway config, or ask for a token that is granted some.',
      ),
    );
    return;
  }
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
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void callTool(tool, () => void refresh());
  });
  form.addEventListener('click', (event) => {
    const target = event.target as Element;
    const add = target.closest<HTMLElement>('.add-item');
    if (add?.dataset.for) addItem(tool, add.dataset.for);
    target.closest('.remove-item')?.closest('fieldset')?.remove();
  });
  $('cancel-call').addEventListener('click', cancelCall);
  for (const [name, schema] of Object.entries(properties))
    if (isObjectArray(schema) && required.includes(name)) addItem(tool, name);
}

function renderEmpty(): void {
  $('calls-empty').hidden = $('calls').children.length > 0;
}

async function pollCalls(): Promise<void> {
  if (!signedIn) return;
  try {
    const { calls, running } = await apiJson<{ calls: CallEntry[]; running?: RunningCall[] }>(
      `/api/calls?after=${lastSeq}`,
    );
    // Two polls can overlap (the timer and refresh()): each call is shown once.
    const fresh = calls.filter((call) => call.seq > lastSeq);
    if (fresh.length > 0) lastSeq = fresh.at(-1)!.seq;
    updateCallLog(fresh, running ?? []);
    renderEmpty();
  } catch {
    // The next poll tries again; a refused token already showed the sign-in form.
  }
}

async function refresh(): Promise<void> {
  try {
    renderOverview(await apiJson<Overview>('/api/overview'));
    await pollCalls();
  } catch (error) {
    if ((error as Error).message !== UNAUTHORIZED)
      $('gw-meta').textContent = `gateway unreachable: ${(error as Error).message}`;
  }
}

session.onUnauthorized = needToken;
takeSignedInToken();
void offerIssuerSignIn();
setUpPlayground(() => void refresh());
renderConnect();
renderEmpty();
void refresh();
setInterval(() => void refresh(), 2000);
setInterval(() => void pollCalls(), 1000);
