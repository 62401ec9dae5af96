// The one check every runtime runs, written once as plain JavaScript and wrapped per module system:
// a tool defined and its arguments checked, a config rejected with its path, one agent turn with a
// tool call (OpenAI adapter) and one answer from each other adapter against the fake providers,
// and the MCP registry over streamable HTTP to the gateway. Everything is reached through one
// origin (`base`), the test's proxy, so a page needs no CORS. It returns the packages it used.

export const FAKE_TEXT = 'Hello from the fake provider.';
export const AGENT_TEXT = 'The sum is 5.';

const body = `
async function check(m, base, node) {
  const used = [];
  const add = m.schema.defineTool({
    name: 'add',
    description: 'Adds two numbers and returns their sum',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    execute: async ({ a, b }) => ({ sum: a + b }),
  });
  const wrong = m.schema.validateAgainstSchema(add.inputSchema, { a: 1, b: 'two' });
  if (wrong.success || wrong.issues[0].pointer !== '/b' || wrong.issues[0].message !== 'must be number')
    throw new Error('schema: ' + JSON.stringify(wrong));
  used.push('@toolwire/schema');

  let rejected;
  try {
    m.config.validateConfig({ mcpServers: { fs: { command: 1 } } });
  } catch (error) {
    rejected = error;
  }
  if (!m.config.ConfigError.isInstance(rejected) || !rejected.message.includes('mcpServers.fs.command'))
    throw new Error('config: ' + String(rejected));
  used.push('@toolwire/config');

  const openai = m.openai.createOpenAI({
    baseURL: base + 'openai/v1',
    apiKey: 'sk-fake',
    dangerouslyAllowBrowser: true,
  });
  const turn = await m.agent.createAgent({ model: openai('gpt-5-mini'), tools: [add] }).run('What is 2 + 3?');
  if (turn.text !== ${JSON.stringify(AGENT_TEXT)}) throw new Error('agent: ' + JSON.stringify(turn.text));
  used.push('@toolwire/openai', '@toolwire/agent');

  const models = [
    ['@toolwire/anthropic', m.anthropic.createAnthropic({ baseURL: base + 'anthropic', apiKey: 'sk-ant-fake', dangerouslyAllowBrowser: true })('claude-sonnet-4-6')],
    ['@toolwire/ollama', m.ollama.createOllama({ host: base + 'ollama' })('llama3.2')],
    ['@toolwire/google', m.google.createGoogle({ baseURL: base + 'google', apiKey: 'gemini-fake' })('gemini-2.5-flash')],
  ];
  for (const [name, model] of models) {
    const answer = await model.generate({ messages: [{ role: 'user', content: 'Hi' }] });
    if (answer.text !== ${JSON.stringify(FAKE_TEXT)}) throw new Error(name + ': ' + JSON.stringify(answer.text));
    used.push(name);
  }

  const registry = m.mcp.createRegistry({ config: { mcpServers: { gateway: { url: base + 'mcp' } } }, nativeTools: [] });
  try {
    await registry.start();
    const result = await registry.callTool('gateway__calculate', { expression: '6 * 7' });
    if (!result.structuredContent || result.structuredContent.result !== 42)
      throw new Error('mcp: ' + JSON.stringify(result) + ' ' + JSON.stringify(registry.servers()));
  } finally {
    await registry.close();
  }
  used.push('@toolwire/mcp');

  if (node) {
    const codeMode = m.codemode.createCodeMode({ source: [add] });
    try {
      const run = await codeMode.run('const { sum } = await add({ a: 20, b: 22 }); return sum;');
      if (run.value !== 42) throw new Error('codemode: ' + JSON.stringify(run));
    } finally {
      await codeMode.close();
    }
    used.push('@toolwire/codemode', '@toolwire/executor');
  }
  return used;
}
`;

const names = {
  schema: '@toolwire/schema',
  config: '@toolwire/config',
  openai: '@toolwire/openai',
  agent: '@toolwire/agent',
  anthropic: '@toolwire/anthropic',
  ollama: '@toolwire/ollama',
  google: '@toolwire/google',
  mcp: '@toolwire/mcp',
};
const nodeNames = { codemode: '@toolwire/codemode', executor: '@toolwire/executor' };

function imports(withNode: boolean): string {
  const all = { ...names, ...(withNode ? nodeNames : {}) };
  return Object.entries(all)
    .map(([key, name]) => `import * as ${key} from '${name}';`)
    .concat(`const m = { ${Object.keys(all).join(', ')} };`)
    .join('\n');
}

/** Node, Deno, Bun: `node check.mjs <base>` prints the packages used as JSON. */
export function esmCheck(withNode: boolean): string {
  const argv = `(globalThis.Deno ? Deno.args : process.argv.slice(2))`;
  // Deno stays alive after the check (not diagnosed yet: see the root README); it is told to exit.
  const exit = `if (globalThis.Deno) Deno.exit(0);`;
  return `${imports(withNode)}\n${body}\nconst used = await check(m, ${argv}[0], ${withNode});\nconsole.log(JSON.stringify(used));\n${exit}\n`;
}

/** Node with \`require\`. */
export function cjsCheck(): string {
  const all = { ...names, ...nodeNames };
  const requires = Object.entries(all)
    .map(([key, name]) => `  ${key}: require('${name}'),`)
    .join('\n');
  return `'use strict';\nconst m = {\n${requires}\n};\n${body}\ncheck(m, process.argv[2], true).then(\n  (used) => console.log(JSON.stringify(used)),\n  (error) => {\n    console.error(error);\n    process.exit(1);\n  },\n);\n`;
}

/** A page (sets \`window.checkResult\`) and a module worker (posts it), bundled for the browser. */
export function browserCheck(): string {
  return `${imports(false)}\n${body}\nconst report = (result) =>\n  typeof window === 'undefined' ? postMessage(result) : (window.checkResult = result);\ncheck(m, location.origin + '/', false).then(\n  (used) => report({ used }),\n  (error) => report({ error: String(error && error.stack ? error.stack : error) }),\n);\n`;
}

/** A Cloudflare worker (no nodejs_compat): each request runs the check against \`?base=\`. */
export function workerdCheck(): string {
  return `${imports(false)}\n${body}\nexport default {\n  async fetch(request) {\n    const base = new URL(request.url).searchParams.get('base');\n    try {\n      return Response.json({ used: await check(m, base, false) });\n    } catch (error) {\n      return Response.json({ error: String(error && error.stack ? error.stack : error) });\n    }\n  },\n};\n`;
}
