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
  .err { color:var(--bad); }
  #auth { display:none; gap:8px; align-items:center; }
  #auth input { width:260px; }
  .log { max-height:320px; overflow:auto; }
</style>
</head>
<body>
<header>
  <h1>Toolwire gateway</h1>
  <span class="meta" id="gw-meta">connecting…</span>
  <span class="spacer"></span>
  <form id="auth"><span class="muted">Bearer token</span><input id="token" type="password" autocomplete="off" placeholder="auth.tokens[].token"><button type="submit">Sign in</button></form>
</header>
<main>
  <section class="full"><h2>Key metrics</h2><div class="cards" data-testid="metrics" id="metrics"></div></section>
  <section class="full"><h2>Upstreams</h2>
    <table data-testid="upstreams"><thead><tr><th>Server</th><th>Status</th><th>Tools</th><th>Transport</th><th>Restarts</th><th>Reason</th></tr></thead><tbody id="servers"></tbody></table>
  </section>
  <section><h2>Tools <span class="muted" id="tool-count"></span></h2>
    <input id="filter" placeholder="Filter tools">
    <ul class="tools" data-testid="tool-list" id="tool-list"></ul>
  </section>
  <section><h2>Call a tool</h2>
    <div id="tool-detail" class="muted">Pick a tool on the left.</div>
  </section>
  <section class="full"><h2>Live call log</h2>
    <div class="log"><table data-testid="call-log"><thead><tr><th>Time</th><th>Tool</th><th>Client</th><th>Upstream</th><th>Duration</th><th>Outcome</th></tr></thead><tbody id="calls"></tbody></table></div>
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

  async function api(path, body) {
    const headers = { accept: 'application/json' };
    if (token) headers.authorization = 'Bearer ' + token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status === 401) { needToken(); throw new Error('unauthorized'); }
    const data = await res.json();
    if (!res.ok) throw new Error((data.error && data.error.message) || res.statusText);
    return data;
  }

  function needToken() {
    signedIn = false;
    $('auth').style.display = 'flex';
    $('gw-meta').textContent = 'this gateway needs a bearer token';
  }
  $('auth').addEventListener('submit', (e) => {
    e.preventDefault();
    token = $('token').value.trim();
    sessionStorage.setItem('toolwire-token', token);
    lastSeq = 0; $('calls').innerHTML = '';
    refresh();
  });

  function renderOverview(o) {
    signedIn = true;
    $('auth').style.display = o.gateway.auth ? 'flex' : 'none';
    $('gw-meta').textContent = 'v' + o.gateway.version + ' · up ' + o.gateway.uptimeSeconds + ' s' + (o.gateway.client ? ' · client ' + o.gateway.client : '') + (o.gateway.redis ? ' · redis' : '') + (o.gateway.chatModel ? ' · chat model ' + o.gateway.chatModel : '');
    const m = o.metrics;
    const cards = [['Calls', m.calls], ['OK', m.ok], ['Cached', m.cached], ['Tool errors', m.toolErrors], ['Errors', m.errors], ['Refused', m.refused], ['p50 ms', m.p50], ['p95 ms', m.p95], ['Tools', o.tools.length], ['Upstreams', o.servers.length]];
    $('metrics').innerHTML = cards.map(([k, v]) => '<div class="card"><b>' + esc(v) + '</b><span>' + esc(k) + '</span></div>').join('');
    $('servers').innerHTML = o.servers.map((s) => '<tr><td>' + esc(s.name) + '</td><td><span class="dot s-' + esc(s.status) + '"></span>' + esc(s.status) + '</td><td>' + esc(s.tools) + '</td><td>' + esc(s.transport) + '</td><td>' + esc(s.restarts) + '</td><td class="muted">' + esc(s.reason || '') + '</td></tr>').join('') || '<tr><td colspan="6" class="muted">No MCP servers configured (native tools only).</td></tr>';
    const names = JSON.stringify(tools.map((t) => t.name + t.status));
    tools = o.tools;
    if (names !== JSON.stringify(tools.map((t) => t.name + t.status))) renderTools();
  }

  function renderTools() {
    const q = $('filter').value.toLowerCase();
    const shown = tools.filter((t) => !q || t.name.toLowerCase().includes(q) || t.description.toLowerCase().includes(q));
    $('tool-count').textContent = '(' + tools.length + ')';
    $('tool-list').innerHTML = shown.map((t) => '<li data-tool="' + esc(t.name) + '" class="' + (selected === t.name ? 'sel' : '') + '"><span><span class="dot s-' + esc(t.status) + '"></span>' + esc(t.name) + '</span><small>' + esc(t.source) + '</small></li>').join('');
  }
  $('filter').addEventListener('input', renderTools);
  $('tool-list').addEventListener('click', (e) => {
    const li = e.target.closest('li[data-tool]');
    if (!li) return;
    selected = li.dataset.tool;
    renderTools();
    renderDetail();
  });

  function sample(schema) {
    if (!schema || typeof schema !== 'object') return '';
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
    if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
    if (schema.const !== undefined) return schema.const;
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
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

  function field(name, schema, required) {
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    const id = 'arg-' + name;
    const label = '<label for="' + esc(id) + '"><code>' + esc(name) + '</code>' + (required ? ' *' : '') + (schema.description ? ' — ' + esc(schema.description) : '') + '</label>';
    const value = sample(schema);
    if (Array.isArray(schema.enum)) return label + '<select id="' + esc(id) + '" data-arg="' + esc(name) + '" data-kind="json">' + schema.enum.map((v) => '<option value="' + esc(JSON.stringify(v)) + '">' + esc(v) + '</option>').join('') + '</select>';
    if (type === 'boolean') return label + '<select id="' + esc(id) + '" data-arg="' + esc(name) + '" data-kind="json"><option value="false">false</option><option value="true">true</option></select>';
    if (type === 'number' || type === 'integer') return label + '<input id="' + esc(id) + '" type="number" data-arg="' + esc(name) + '" data-kind="number" value="' + esc(value) + '"' + (required ? '' : ' placeholder="(optional)"') + '>';
    if (type === 'string') return label + '<input id="' + esc(id) + '" data-arg="' + esc(name) + '" data-kind="string" value="' + esc(value) + '"' + (required ? '' : ' placeholder="(optional)"') + '>';
    return label + '<textarea id="' + esc(id) + '" rows="3" data-arg="' + esc(name) + '" data-kind="json">' + esc(JSON.stringify(value, null, 2)) + '</textarea>';
  }

  function renderDetail() {
    const t = tools.find((x) => x.name === selected);
    if (!t) { $('tool-detail').innerHTML = '<span class="muted">Pick a tool on the left.</span>'; return; }
    const props = (t.inputSchema && t.inputSchema.properties) || {};
    const required = (t.inputSchema && t.inputSchema.required) || [];
    $('tool-detail').innerHTML = '<div><b>' + esc(t.name) + '</b> <span class="muted">from ' + esc(t.source) + (t.originalName !== t.name ? ' as ' + esc(t.originalName) : '') + '</span></div>' +
      '<p>' + esc(t.description) + '</p>' +
      '<form id="call-form">' + Object.entries(props).map(([k, v]) => field(k, v, required.includes(k))).join('') +
      '<div class="row"><button type="submit" data-testid="call-button">Call ' + esc(t.name) + '</button><span class="muted" id="call-status"></span></div></form>' +
      '<pre data-testid="call-result" id="call-result"></pre>' +
      '<details><summary class="muted">Input schema</summary><pre data-testid="tool-schema">' + esc(JSON.stringify(t.inputSchema, null, 2)) + '</pre></details>';
    $('call-form').addEventListener('submit', callSelected);
  }

  async function callSelected(e) {
    e.preventDefault();
    const t = tools.find((x) => x.name === selected);
    const required = (t.inputSchema && t.inputSchema.required) || [];
    const args = {};
    try {
      for (const el of document.querySelectorAll('[data-arg]')) {
        const name = el.dataset.arg;
        if (el.value === '' && !required.includes(name)) continue;
        if (el.dataset.kind === 'string') args[name] = el.value;
        else if (el.dataset.kind === 'number') args[name] = Number(el.value);
        else args[name] = JSON.parse(el.value);
      }
    } catch (err) { $('call-result').textContent = 'Bad input: ' + err.message; return; }
    $('call-status').textContent = 'calling…';
    const started = performance.now();
    try {
      const answer = await api('/api/call', { name: t.name, arguments: args });
      $('call-status').textContent = (answer.ok ? (answer.result.isError ? 'tool error' : 'ok') : 'refused/failed') + ' in ' + Math.round(performance.now() - started) + ' ms';
      $('call-result').textContent = JSON.stringify(answer.ok ? answer.result : answer.error, null, 2);
      refresh();
    } catch (err) { $('call-status').textContent = ''; $('call-result').textContent = err.message; }
  }

  async function pollCalls() {
    if (!signedIn) return;
    try {
      const { calls } = await api('/api/calls?after=' + lastSeq);
      for (const c of calls) {
        lastSeq = Math.max(lastSeq, c.seq);
        const tr = document.createElement('tr');
        tr.innerHTML = '<td>' + esc(new Date(c.time).toLocaleTimeString()) + '</td><td>' + esc(c.tool) + '</td><td>' + esc(c.client) + '</td><td>' + esc(c.upstream) + '</td><td>' + esc(c.durationMs.toFixed(1)) + ' ms</td><td class="o-' + esc(c.outcome) + '" title="' + esc(c.error || '') + '">' + esc(c.outcome) + '</td>';
        $('calls').prepend(tr);
      }
      while ($('calls').children.length > 200) $('calls').lastChild.remove();
    } catch {}
  }

  $('run-code').addEventListener('click', async () => {
    $('code-status').textContent = 'running…';
    $('run-code').disabled = true;
    try {
      const r = await api('/api/code', { code: $('code').value });
      $('code-status').textContent = (r.ok ? 'ok' : 'failed') + ' in ' + Math.round(r.durationMs) + ' ms · ' + r.toolCalls.length + ' tool call(s)';
      const logs = r.logs.map((l) => '[' + l.level + '] ' + l.message).join('\\n');
      const diags = r.diagnostics.map((d) => 'type ' + (d.line ? 'line ' + d.line + ': ' : '') + d.message).join('\\n');
      $('code-output').textContent = [diags, logs, r.ok ? 'return ' + JSON.stringify(r.value, null, 2) : 'error (' + r.error.kind + '): ' + r.error.message].filter(Boolean).join('\\n\\n');
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
  refresh();
  setInterval(refresh, 2000);
  setInterval(pollCalls, 1000);
})();
</script>
</body>
</html>
`;
