// The dashboard: one static page (no build step). It holds no data itself: everything comes from
// `/api/*` with the bearer token the user enters, so the page shell is safe to serve without auth.
export const DASHBOARD_HTML = /* html */ `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Toolwire gateway</title>
<style>
  :root { --bg:#0f1419; --panel:#171d24; --line:#263040; --text:#dde3ea; --dim:#8b98a8; --ok:#3fb950; --warn:#d29922; --bad:#f85149; --accent:#58a6ff; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; background:var(--bg); color:var(--text); }
  header { display:flex; align-items:center; gap:16px; padding:12px 20px; border-bottom:1px solid var(--line); background:var(--panel); }
  header h1 { font-size:17px; margin:0; }
  header .meta { color:var(--dim); font-size:12px; }
  header .spacer { flex:1; }
  main { display:grid; grid-template-columns: 340px 1fr; gap:16px; padding:16px 20px; }
  section { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:12px 14px; min-width:0; }
  section h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--dim); margin:0 0 10px; }
  .full { grid-column: 1 / -1; }
  .cards { display:grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap:10px; }
  .card { background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:8px 10px; }
  .card b { display:block; font-size:20px; }
  .card span { color:var(--dim); font-size:12px; }
  table { width:100%; border-collapse:collapse; font-size:13px; }
  th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { color:var(--dim); font-weight:500; }
  .dot { display:inline-block; width:9px; height:9px; border-radius:50%; margin-right:6px; background:var(--dim); }
  .s-ok { background:var(--ok); } .s-stale, .s-connecting { background:var(--warn); } .s-down, .s-unavailable { background:var(--bad); }
  .o-ok, .o-cached { color:var(--ok); } .o-tool_error, .o-refused { color:var(--warn); } .o-error { color:var(--bad); }
  ul.tools { list-style:none; margin:0; padding:0; max-height:520px; overflow:auto; }
  ul.tools li { padding:6px 8px; border-radius:5px; cursor:pointer; display:flex; justify-content:space-between; gap:8px; }
  ul.tools li:hover, ul.tools li.sel { background:#1f2a37; }
  ul.tools li small { color:var(--dim); }
  input, select, textarea, button { font:inherit; color:var(--text); background:var(--bg); border:1px solid var(--line); border-radius:5px; padding:6px 8px; }
  input, select, textarea { width:100%; }
  textarea { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size:12.5px; }
  button { background:var(--accent); color:#04101f; border:none; font-weight:600; cursor:pointer; padding:7px 14px; width:auto; }
  button:disabled { opacity:.5; cursor:default; }
  label { display:block; margin:8px 0 3px; color:var(--dim); font-size:12px; }
  label code { color:var(--text); }
  pre { background:var(--bg); border:1px solid var(--line); border-radius:6px; padding:8px 10px; overflow:auto; max-height:300px; font-size:12px; margin:6px 0 0; white-space:pre-wrap; word-break:break-word; }
  .row { display:flex; gap:10px; align-items:center; margin-top:10px; }
  .muted { color:var(--dim); }
  .warn { color:#b45309; }
  .err { color:var(--bad); }
  #auth { display:none; gap:8px; align-items:center; flex-wrap:wrap; }
  #auth input { width:260px; max-width:100%; }
  #auth-error { color:var(--bad); font-size:12px; }
  #signed-in { display:none; gap:8px; align-items:center; }
  button.secondary { background:transparent; color:var(--text); border:1px solid var(--line); font-weight:500; }
  .scroll { overflow-x:auto; max-width:100%; }
  .log { max-height:320px; overflow:auto; }
  .empty td { color:var(--dim); text-align:center; padding:14px 8px; }
  .connect code.url { background:var(--bg); border:1px solid var(--line); border-radius:5px; padding:5px 8px; word-break:break-all; }
  .result img { max-width:100%; height:auto; display:block; margin:6px 0; background:#fff; border-radius:4px; image-rendering:pixelated; min-width:32px; }
  .result .part-label { color:var(--dim); font-size:12px; margin-top:6px; }
  fieldset.item { border:1px solid var(--line); border-radius:6px; margin:6px 0; padding:4px 10px 10px; }
  fieldset.item legend { color:var(--dim); font-size:12px; }
  progress { width:140px; max-width:40%; }
  ul.tools li:focus { outline:2px solid var(--accent); outline-offset:-2px; }
  @media (max-width: 720px) {
    header { flex-wrap:wrap; padding:10px 12px; gap:8px; }
    header .spacer { display:none; }
    main { grid-template-columns:minmax(0, 1fr); padding:10px 8px; gap:10px; }
    section { padding:10px; }
    #auth, #auth input { width:100%; }
    ul.tools { max-height:260px; }
  }
</style>
</head>
<body>
<header>
  <h1>Toolwire gateway</h1>
  <span class="meta" id="gw-meta">connecting…</span>
  <span class="spacer"></span>
  <form id="auth"><span class="muted">Bearer token</span><input id="token" type="password" autocomplete="off" placeholder="auth.tokens[].token" aria-label="Bearer token"><button type="submit">Sign in</button><span id="auth-error" data-testid="auth-error" role="alert"></span></form>
  <span id="signed-in"><button type="button" class="secondary" id="sign-out" data-testid="sign-out">Sign out</button></span>
</header>
<main>
  <section class="full"><h2>Key metrics</h2><div class="cards" data-testid="metrics" id="metrics"></div></section>
  <section class="full connect" data-testid="connect"><h2>Connect an MCP client</h2>
    <div class="row" style="flex-wrap:wrap"><code class="url" id="mcp-url" data-testid="mcp-url"></code><button type="button" class="secondary" id="copy-url" data-testid="copy-url">Copy</button><span class="muted" id="copy-status" role="status"></span></div>
    <p class="muted">Claude Desktop (<code>claude_desktop_config.json</code>, through <code>mcp-remote</code>) and Cursor (<code>.cursor/mcp.json</code>, streamable HTTP):</p>
    <pre id="snippet-claude" data-testid="snippet-claude"></pre>
    <pre id="snippet-cursor" data-testid="snippet-cursor"></pre>
  </section>
  <section class="full"><h2>Upstreams</h2>
    <div class="scroll"><table data-testid="upstreams"><thead><tr><th>Server</th><th>Status</th><th>Tools</th><th>Transport</th><th>Restarts</th><th>Reason</th></tr></thead><tbody id="servers"></tbody></table></div>
  </section>
  <section><h2>Tools <span class="muted" id="tool-count"></span></h2>
    <input id="filter" placeholder="Filter tools" aria-label="Filter tools">
    <ul class="tools" data-testid="tool-list" id="tool-list" role="listbox" aria-label="Tools"></ul>
  </section>
  <section><h2>Call a tool</h2>
    <div id="tool-detail" class="muted">Pick a tool on the left.</div>
  </section>
  <section class="full"><h2>Live call log</h2>
    <div class="log"><table data-testid="call-log"><thead><tr><th>Time</th><th>Tool</th><th>Client</th><th>Upstream</th><th>Duration</th><th>Outcome</th></tr></thead><tbody id="calls"></tbody></table><table><tbody id="calls-empty"><tr class="empty" data-testid="no-calls"><td>No calls yet: call a tool above, or connect an MCP client to the endpoint shown above.</td></tr></tbody></table></div>
  </section>
  <section class="full"><h2>Code-mode playground</h2>
    <p class="muted">TypeScript function body: each tool is an async function (see the declarations), <code>await</code> it, <code>return</code> gives the result. Every call goes through the gateway's policy.</p>
    <details id="decl-box"><summary class="muted">Declarations the code sees</summary><pre id="declarations" data-testid="declarations"></pre></details>
    <textarea id="code" rows="8" data-testid="code-editor">const now = await time({ name: 'get_time_utc' });
const sum = await calculate({ expression: '6 * 7' });
console.log('two calls done');
return { now, sum };</textarea>
    <div class="row"><button id="run-code" data-testid="run-code">Run</button><span class="muted" id="code-status"></span></div>
    <pre id="code-output" data-testid="code-output"></pre>
  </section>
</main>
<script>
(() => {
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&':'&amp;', '<':'&lt;', '>':'&gt;', '"':'&quot;', "'":'&#39;' }[c]));
  let token = sessionStorage.getItem('toolwire-token') || '';
  let tools = [];
  let selected = null;
  let lastSeq = 0;
  let signedIn = false;
  let authRequired = false;
  let running = null;

  // One set of words for outcomes: the call panel, the log and the metrics all use these.
  const OUTCOMES = { ok: 'ok', cached: 'cached', tool_error: 'tool error', refused: 'refused', error: 'error', cancelled: 'cancelled' };
  const outcomeLabel = (o) => OUTCOMES[o] || String(o);
  // Policy, rate limit and invalid arguments: the gateway refused the call (as its audit log says).
  const REFUSED_CODES = [-32003, -32029, -32602];

  /** 0.4 ms, 12 ms, 1.3 s, 2 min 5 s, 3 h 4 min. */
  function duration(ms) {
    if (ms === null || ms === undefined || !isFinite(ms)) return '–';
    if (ms < 10) return (Math.round(ms * 10) / 10) + ' ms';
    if (ms < 1000) return Math.round(ms) + ' ms';
    if (ms < 60000) return (Math.round(ms / 100) / 10) + ' s';
    const s = Math.round(ms / 1000);
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }

  async function api(path, body, signal) {
    const headers = { accept: 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    if (res.status === 401) { needToken(); throw new Error('unauthorized'); }
    if (res.headers.get('content-type') && res.headers.get('content-type').includes('ndjson')) return res;
    const data = await res.json();
    if (!res.ok) throw new Error((data.error && data.error.message) || res.statusText);
    return data;
  }

  function needToken() {
    const refused = signedIn || token !== '';
    signedIn = false;
    authRequired = true;
    $('auth').style.display = 'flex';
    $('signed-in').style.display = 'none';
    $('gw-meta').textContent = 'this gateway needs a bearer token';
    $('auth-error').textContent = token ? 'That token was refused: check auth.tokens in the gateway config.' : '';
    if (refused) clearData();
  }
  function clearData() {
    tools = []; selected = null; lastSeq = 0;
    $('calls').innerHTML = ''; $('servers').innerHTML = ''; $('metrics').innerHTML = '';
    renderTools(); renderDetail(); renderEmpty();
  }
  $('auth').addEventListener('submit', (e) => {
    e.preventDefault();
    token = $('token').value.trim();
    if (!token) { $('auth-error').textContent = 'Enter a token first.'; return; }
    sessionStorage.setItem('toolwire-token', token);
    $('auth-error').textContent = 'checking…';
    lastSeq = 0; $('calls').innerHTML = '';
    refresh();
  });
  $('sign-out').addEventListener('click', () => {
    token = '';
    sessionStorage.removeItem('toolwire-token');
    $('token').value = '';
    signedIn = false;
    clearData();
    needToken();
    $('auth-error').textContent = 'Signed out.';
  });

  function renderConnect() {
    const url = location.origin + '/mcp';
    $('mcp-url').textContent = url;
    const auth = authRequired ? 'Bearer <your token>' : null;
    const claude = { mcpServers: { toolwire: { command: 'npx', args: ['-y', 'mcp-remote', url].concat(auth ? ['--header', 'Authorization:' + auth] : []) } } };
    const cursor = { mcpServers: { toolwire: Object.assign({ url }, auth ? { headers: { Authorization: auth } } : {}) } };
    $('snippet-claude').textContent = JSON.stringify(claude, null, 2);
    $('snippet-cursor').textContent = JSON.stringify(cursor, null, 2);
  }
  $('copy-url').addEventListener('click', async () => {
    const url = $('mcp-url').textContent;
    try {
      await navigator.clipboard.writeText(url);
      $('copy-status').textContent = 'Copied';
    } catch {
      // No clipboard (plain http on a non-local host): select the text for Ctrl-C instead.
      const range = document.createRange(); range.selectNodeContents($('mcp-url'));
      const sel = getSelection(); sel.removeAllRanges(); sel.addRange(range);
      $('copy-status').textContent = 'Selected: press Ctrl-C to copy';
    }
  });

  function renderOverview(o) {
    signedIn = true;
    authRequired = o.gateway.auth;
    $('auth').style.display = 'none';
    $('auth-error').textContent = '';
    $('signed-in').style.display = o.gateway.auth ? 'flex' : 'none';
    $('gw-meta').textContent = 'v' + o.gateway.version + ' · up ' + duration(o.gateway.uptimeSeconds * 1000) + (o.gateway.client ? ' · client ' + o.gateway.client : '') + (o.gateway.redis ? ' · redis' : '') + (o.gateway.chatModel ? ' · chat model ' + o.gateway.chatModel : '');
    renderConnect();
    const m = o.metrics;
    const cards = [['Calls', m.calls], [outcomeLabel('ok'), m.ok], [outcomeLabel('cached'), m.cached], [outcomeLabel('tool_error'), m.toolErrors], [outcomeLabel('error'), m.errors], [outcomeLabel('refused'), m.refused], ['p50', m.calls ? duration(m.p50) : '–'], ['p95', m.calls ? duration(m.p95) : '–'], ['Tools', o.tools.length], ['Upstreams', o.servers.length]];
    $('metrics').innerHTML = cards.map(([k, v]) => '<div class="card"><b>' + esc(v) + '</b><span>' + esc(k) + '</span></div>').join('');
    $('servers').innerHTML = o.servers.map((s) => '<tr><td>' + esc(s.name) + '</td><td><span class="dot s-' + esc(s.status) + '"></span>' + esc(s.status) + '</td><td>' + esc(s.tools) + '</td><td>' + esc(s.transport) + (s.protocolVersion ? ' · ' + esc(s.protocolVersion) : '') + (s.protocolKnown === false ? ' <span class="warn" title="a protocol revision this gateway does not know">⚠ unknown revision</span>' : '') + '</td><td>' + esc(s.restarts) + '</td><td class="muted">' + esc(s.reason || '') + '</td></tr>').join('') || '<tr><td colspan="6" class="muted">No MCP servers configured (native tools only).</td></tr>';
    const names = JSON.stringify(tools.map((t) => t.name + t.status));
    tools = o.tools;
    if (names !== JSON.stringify(tools.map((t) => t.name + t.status))) renderTools();
  }

  function renderTools() {
    const q = $('filter').value.toLowerCase();
    const shown = tools.filter((t) => !q || t.name.toLowerCase().includes(q) || t.description.toLowerCase().includes(q));
    $('tool-count').textContent = tools.length ? '(' + tools.length + ')' : '';
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.tool : undefined;
    $('tool-list').innerHTML = shown.map((t) => '<li role="option" tabindex="0" aria-selected="' + (selected === t.name) + '" data-tool="' + esc(t.name) + '" class="' + (selected === t.name ? 'sel' : '') + '"><span><span class="dot s-' + esc(t.status) + '"></span>' + esc(t.name) + '</span><small>' + esc(t.source) + '</small></li>').join('');
    if (focused) { const again = $('tool-list').querySelector('li[data-tool="' + CSS.escape(focused) + '"]'); if (again) again.focus(); }
  }
  function selectTool(name) {
    selected = name;
    renderTools();
    renderDetail();
  }
  $('filter').addEventListener('input', renderTools);
  $('tool-list').addEventListener('click', (e) => {
    const li = e.target.closest('li[data-tool]');
    if (li) selectTool(li.dataset.tool);
  });
  // Keyboard: arrows move through the list, Enter or Space picks the tool (and moves to its form).
  $('tool-list').addEventListener('keydown', (e) => {
    const li = e.target.closest('li[data-tool]');
    if (!li) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const next = e.key === 'ArrowDown' ? li.nextElementSibling : li.previousElementSibling;
      if (next) next.focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      selectTool(li.dataset.tool);
      const first = $('tool-detail').querySelector('input, select, textarea, button');
      if (first) first.focus();
    }
  });
  $('filter').addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown') return;
    const first = $('tool-list').querySelector('li');
    if (first) { e.preventDefault(); first.focus(); }
  });

  function sample(schema) {
    if (!schema || typeof schema !== 'object') return '';
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
    if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
    if (schema.const !== undefined) return schema.const;
    const type = typeOf(schema);
    if (type === 'string') return '';
    if (type === 'number' || type === 'integer') return 0;
    if (type === 'boolean') return false;
    if (type === 'array') return [];
    if (type === 'object' || schema.properties) {
      const out = {};
      for (const [k, v] of Object.entries(schema.properties || {})) if ((schema.required || []).includes(k)) out[k] = sample(v);
      return out;
    }
    return '';
  }
  function typeOf(schema) { return Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type; }
  const isObjectArray = (schema) => typeOf(schema) === 'array' && schema.items && typeof schema.items === 'object' && (typeOf(schema.items) === 'object' || schema.items.properties);

  // One input for a value; data-name is the property, data-kind how to read it.
  function input(id, name, schema, required) {
    const type = typeOf(schema);
    const value = sample(schema);
    const attrs = ' id="' + esc(id) + '" data-name="' + esc(name) + '"' + (required ? ' data-required="1"' : '');
    if (Array.isArray(schema.enum)) return '<select' + attrs + ' data-kind="json">' + (required ? '' : '<option value="">(none)</option>') + schema.enum.map((v) => '<option value="' + esc(JSON.stringify(v)) + '">' + esc(v) + '</option>').join('') + '</select>';
    if (type === 'boolean') return '<select' + attrs + ' data-kind="json">' + (required ? '' : '<option value="">(none)</option>') + '<option value="false">false</option><option value="true">true</option></select>';
    if (type === 'number' || type === 'integer') return '<input' + attrs + ' type="number" data-kind="number" value="' + (required ? esc(value) : '') + '"' + (required ? '' : ' placeholder="(optional)"') + '>';
    if (type === 'string') return '<input' + attrs + ' data-kind="string" value="' + esc(value) + '"' + (required ? '' : ' placeholder="(optional)"') + '>';
    return '<textarea' + attrs + ' rows="3" data-kind="json">' + esc(required ? JSON.stringify(value, null, 2) : '') + '</textarea>';
  }
  function labelFor(id, name, schema, required) {
    return '<label for="' + esc(id) + '"><code>' + esc(name) + '</code>' + (required ? ' *' : '') + (schema.description ? ' — ' + esc(schema.description) : '') + '</label>';
  }
  function field(name, schema, required) {
    const id = 'arg-' + name;
    if (isObjectArray(schema)) {
      return '<label><code>' + esc(name) + '</code>' + (required ? ' *' : '') + (schema.description ? ' — ' + esc(schema.description) : '') + '</label>' +
        '<div class="items" data-arg="' + esc(name) + '" data-kind="items" data-testid="items-' + esc(name) + '"></div>' +
        '<button type="button" class="secondary add-item" data-for="' + esc(name) + '">+ Add item</button>';
    }
    return labelFor(id, name, schema, required) + input(id, name, schema, required).replace('data-name=', 'data-arg=');
  }
  function addItem(name) {
    const t = tools.find((x) => x.name === selected);
    const schema = t.inputSchema.properties[name].items;
    const box = document.querySelector('.items[data-arg="' + CSS.escape(name) + '"]');
    const n = box.children.length;
    const req = schema.required || [];
    const fs = document.createElement('fieldset');
    fs.className = 'item';
    fs.innerHTML = '<legend>' + esc(name) + '[' + n + ']</legend>' + Object.entries(schema.properties || {}).map(([k, v]) => {
      const id = 'arg-' + name + '-' + n + '-' + k;
      return labelFor(id, k, v, req.includes(k)) + input(id, k, v, req.includes(k));
    }).join('') + '<div class="row"><button type="button" class="secondary remove-item">Remove</button></div>';
    box.appendChild(fs);
    const first = fs.querySelector('input, select, textarea');
    if (first) first.focus();
  }
  function readValue(el) {
    if (el.value === '' && !el.dataset.required) return undefined;
    if (el.dataset.kind === 'string') return el.value;
    if (el.dataset.kind === 'number') return Number(el.value);
    return JSON.parse(el.value);
  }

  function renderDetail() {
    const t = tools.find((x) => x.name === selected);
    if (!t) { $('tool-detail').innerHTML = '<span class="muted">Pick a tool on the left (or focus the list and use the arrow keys and Enter).</span>'; return; }
    const props = (t.inputSchema && t.inputSchema.properties) || {};
    const required = (t.inputSchema && t.inputSchema.required) || [];
    $('tool-detail').innerHTML = '<div><b>' + esc(t.name) + '</b> <span class="muted">from ' + esc(t.source) + (t.originalName !== t.name ? ' as ' + esc(t.originalName) : '') + '</span></div>' +
      '<p>' + esc(t.description) + '</p>' +
      '<form id="call-form">' + Object.entries(props).map(([k, v]) => field(k, v, required.includes(k))).join('') +
      '<div class="row" style="flex-wrap:wrap"><button type="submit" data-testid="call-button">Call ' + esc(t.name) + '</button><button type="button" class="secondary" id="cancel-call" data-testid="cancel-call" hidden>Cancel</button><progress id="call-progress" data-testid="call-progress" hidden></progress><span class="muted" id="call-status" data-testid="call-status" role="status"></span></div></form>' +
      '<div class="result" data-testid="call-result" id="call-result"></div>' +
      '<details><summary class="muted">Input schema</summary><pre data-testid="tool-schema">' + esc(JSON.stringify(t.inputSchema, null, 2)) + '</pre></details>';
    $('call-form').addEventListener('submit', callSelected);
    $('call-form').addEventListener('click', (e) => {
      const add = e.target.closest('.add-item');
      if (add) addItem(add.dataset.for);
      const remove = e.target.closest('.remove-item');
      if (remove) remove.closest('fieldset').remove();
    });
    $('cancel-call').addEventListener('click', () => { if (running) running.abort(); });
    for (const [k, v] of Object.entries(props)) if (isObjectArray(v) && required.includes(k)) addItem(k);
  }

  // Text as text, JSON pretty, images as images, resources by their text or link.
  function renderResult(answer) {
    const box = $('call-result');
    box.innerHTML = '';
    const pre = (text) => { const el = document.createElement('pre'); el.textContent = text; box.appendChild(el); };
    if (!answer.ok) { pre((answer.error && answer.error.message) || 'failed'); return; }
    const r = answer.result || {};
    for (const part of r.content || []) {
      if (part.type === 'text') pre(part.text);
      else if (part.type === 'image' && /^image\\/(png|jpeg|gif|webp|svg\\+xml)$/.test(part.mimeType || '')) {
        const img = document.createElement('img');
        img.src = 'data:' + part.mimeType + ';base64,' + part.data;
        img.alt = 'image result (' + part.mimeType + ')';
        img.dataset.testid = 'result-image';
        box.appendChild(img);
      } else if (part.type === 'audio') {
        const audio = document.createElement('audio'); audio.controls = true; audio.src = 'data:' + part.mimeType + ';base64,' + part.data; box.appendChild(audio);
      } else if (part.type === 'resource' && part.resource) {
        const label = document.createElement('div'); label.className = 'part-label'; label.textContent = 'resource ' + part.resource.uri; box.appendChild(label);
        pre(part.resource.text !== undefined ? part.resource.text : '[' + (part.resource.mimeType || 'binary') + ', ' + Math.round((part.resource.blob || '').length * 3 / 4) + ' bytes]');
      } else if (part.type === 'resource_link') {
        const label = document.createElement('div'); label.className = 'part-label'; label.textContent = 'link ' + part.uri + (part.name ? ' (' + part.name + ')' : ''); box.appendChild(label);
      } else pre(JSON.stringify(part, null, 2));
    }
    if (r.structuredContent !== undefined) { const label = document.createElement('div'); label.className = 'part-label'; label.textContent = 'structured content'; box.appendChild(label); pre(JSON.stringify(r.structuredContent, null, 2)); }
  }

  function collectArgs(t) {
    const args = {};
    for (const el of document.querySelectorAll('#call-form [data-arg]')) {
      const name = el.dataset.arg;
      if (el.dataset.kind === 'items') {
        args[name] = [...el.children].map((fs) => {
          const item = {};
          for (const sub of fs.querySelectorAll('[data-name]')) {
            const v = readValue(sub);
            if (v !== undefined) item[sub.dataset.name] = v;
          }
          return item;
        });
        if (!args[name].length && !((t.inputSchema.required || []).includes(name))) delete args[name];
        continue;
      }
      el.dataset.required = (t.inputSchema.required || []).includes(name) ? '1' : '';
      const v = readValue(el);
      if (v !== undefined) args[name] = v;
    }
    return args;
  }

  async function callSelected(e) {
    e.preventDefault();
    const t = tools.find((x) => x.name === selected);
    let args;
    try { args = collectArgs(t); }
    catch (err) { $('call-result').textContent = 'Bad input: ' + err.message; return; }
    const status = $('call-status'), progress = $('call-progress'), cancel = $('cancel-call');
    const started = performance.now();
    running = new AbortController();
    cancel.hidden = false; progress.hidden = false; progress.removeAttribute('value');
    const tick = setInterval(() => { status.textContent = 'running… ' + duration(performance.now() - started); }, 200);
    status.textContent = 'running…';
    $('call-result').innerHTML = '';
    let answer;
    try {
      const res = await api('/api/call', { name: t.name, arguments: args, stream: true }, running.signal);
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffered = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        let at;
        while ((at = buffered.indexOf('\\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, at));
          buffered = buffered.slice(at + 1);
          if (line.progress) {
            const p = line.progress;
            if (p.total) { progress.max = p.total; progress.value = p.progress; }
            if (p.message) status.dataset.message = p.message;
          }
          if (line.done) answer = line.done;
        }
      }
      const outcome = !answer ? 'error' : answer.ok ? (answer.result.isError ? 'tool_error' : 'ok') : (REFUSED_CODES.includes(answer.error.code) ? 'refused' : 'error');
      status.innerHTML = '<span class="o-' + outcome + '" data-outcome="' + outcome + '">' + esc(outcomeLabel(outcome)) + '</span> in ' + esc(duration(performance.now() - started));
      if (answer) renderResult(answer);
    } catch (err) {
      if (running.signal.aborted) status.innerHTML = '<span class="o-error" data-outcome="cancelled">' + outcomeLabel('cancelled') + '</span> after ' + esc(duration(performance.now() - started));
      else { status.textContent = ''; $('call-result').textContent = err.message; }
    } finally {
      clearInterval(tick);
      cancel.hidden = true; progress.hidden = true; running = null;
      refresh();
    }
  }

  function renderEmpty() { $('calls-empty').hidden = $('calls').children.length > 0; }
  async function pollCalls() {
    if (!signedIn) return;
    try {
      const { calls } = await api('/api/calls?after=' + lastSeq);
      for (const c of calls) {
        // Two polls can overlap (the timer and refresh()): each call is shown once.
        if (c.seq <= lastSeq) continue;
        lastSeq = c.seq;
        const tr = document.createElement('tr');
        tr.innerHTML = '<td>' + esc(new Date(c.time).toLocaleTimeString()) + '</td><td>' + esc(c.tool) + '</td><td>' + esc(c.client) + '</td><td>' + esc(c.upstream) + '</td><td>' + esc(duration(c.durationMs)) + '</td><td class="o-' + esc(c.outcome) + '" data-outcome="' + esc(c.outcome) + '" title="' + esc(c.error || '') + '">' + esc(outcomeLabel(c.outcome)) + '</td>';
        $('calls').prepend(tr);
      }
      while ($('calls').children.length > 200) $('calls').lastChild.remove();
      renderEmpty();
    } catch {}
  }

  $('run-code').addEventListener('click', async () => {
    $('code-status').textContent = 'running…';
    $('run-code').disabled = true;
    try {
      const r = await api('/api/code', { code: $('code').value, typecheck: 'error' });
      const typeErrors = r.error && r.error.kind === 'typecheck';
      $('code-status').textContent = (r.ok ? 'ok' : typeErrors ? 'type errors: not run' : 'failed') + ' in ' + duration(r.durationMs) + ' · ' + r.toolCalls.length + ' tool call(s)';
      const logs = r.logs.map((l) => '[' + l.level + '] ' + l.message).join('\\n');
      const diags = r.diagnostics.map((d) => 'type error ' + (d.line ? 'line ' + d.line + ': ' : '') + d.message).join('\\n');
      $('code-output').textContent = [diags, logs, r.ok ? 'return ' + JSON.stringify(r.value, null, 2) : typeErrors ? 'The code was not run: fix the type errors above.' : 'error (' + r.error.kind + '): ' + r.error.message].filter(Boolean).join('\\n\\n');
      refresh();
    } catch (err) { $('code-status').textContent = ''; $('code-output').textContent = err.message; }
    finally { $('run-code').disabled = false; }
  });

  $('decl-box').addEventListener('toggle', async () => {
    if (!$('decl-box').open) return;
    try {
      const headers = token ? { authorization: 'Bearer ' + token } : {};
      const res = await fetch('/api/declarations', { headers });
      $('declarations').textContent = res.ok ? await res.text() : 'HTTP ' + res.status;
    } catch (err) { $('declarations').textContent = err.message; }
  });

  async function refresh() {
    try { renderOverview(await api('/api/overview')); await pollCalls(); }
    catch (err) { if (err.message !== 'unauthorized') $('gw-meta').textContent = 'gateway unreachable: ' + err.message; }
  }
  renderConnect();
  renderEmpty();
  refresh();
  setInterval(refresh, 2000);
  setInterval(pollCalls, 1000);
})();
</script>
</body>
</html>
`;
