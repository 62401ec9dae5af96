// pnpm bench: what code mode costs and saves, measured in one run against real MCP servers.
// 1. Tokens (o200k_base via js-tiktoken) of the direct tool definitions, as sent in OpenAI
//    function-calling form, vs the one execute_code tool, for (a) the three npm MCP servers' tools
//    discovered live over stdio, (b) a 50+ tool set of real servers (memory, two filesystem
//    roots, everything, and the three native tools) and (c) 53 and 500 generated realistic tools
//    (bench/generated-tools.ts, deterministic).
// 2. Type-check latency per script (cold and warm) and the cost of stripping types.
// 3. Model turns (and prompt tokens summed over the turns) for a task that chains four dependent
//    tool calls, with a scripted model, in direct mode vs code mode.
// 4. search(): 20 tasks over the 500 generated tools, each one execute_code call by a scripted
//    model that knows only the task (bench/search-tasks.ts).
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createQuickJSExecutor } from '@toolwire/executor';
import { createRegistry, type McpServerConfig, type Registry } from '@toolwire/mcp/node';
import {
  normalizeToolSchema,
  executeToolCalls,
  toolResultText,
  type AnyTool,
  type JsonSchema,
  type ToolCall,
} from '@toolwire/schema';
import { getEncoding } from 'js-tiktoken';
import { CodeTypeChecker } from '../src/type-checker.js';
import {
  createCodeMode,
  generateDeclarations,
  normalizeScript,
  stripTypes,
  type GenerateDeclarationsOptions,
  type CodeModeToolSource,
} from '../src/index.js';
import { generateTools } from './generated-tools.js';
import { recordingSource, runSearchTasks } from './search-tasks.js';

const encoding = getEncoding('o200k_base');
const countTokens = (text: string) => encoding.encode(text).length;
const require = createRequire(import.meta.url);
const serverBin = (name: string) => require.resolve(`@modelcontextprotocol/${name}/dist/index.js`);
const dir = mkdtempSync(path.join(tmpdir(), 'toolwire-codemode-bench-'));
mkdirSync(path.join(dir, 'docs'));

const servers: Record<string, McpServerConfig> = {
  memory: {
    command: process.execPath,
    args: [serverBin('server-memory')],
    env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
  },
  fs: { command: process.execPath, args: [serverBin('server-filesystem'), dir] },
  everything: { command: process.execPath, args: [serverBin('server-everything'), 'stdio'] },
};

async function startRegistry(
  mcpServers: Record<string, McpServerConfig>,
  nativeTools: Array<'hash' | 'time' | 'calculate'>,
) {
  const registry = createRegistry({ config: { mcpServers, nativeTools } });
  await registry.start();
  const down = registry.servers().filter((server) => server.status !== 'ok');
  if (down.length > 0)
    throw new Error(
      `servers not ok: ${down.map((s) => `${s.name} (${s.reason ?? s.status})`).join(', ')}`,
    );
  return registry;
}

/** Tokens of a tool list as an OpenAI chat request's `tools` array (what `@toolwire/openai` sends). */
function openAiToolTokens(
  tools: ReadonlyArray<{ name: string; description?: string; inputSchema: JsonSchema }>,
): number {
  return countTokens(
    JSON.stringify(
      tools.map((tool) => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: normalizeToolSchema(tool.inputSchema, { toolName: tool.name }).schema,
        },
      })),
    ),
  );
}

const table = (rows: Array<Record<string, string | number>>) => console.table(rows);

// ---------------------------------------------------------------------------------------------
console.log(
  '\n# 1. Tool-definition tokens: direct definitions vs the execute_code tool (o200k_base)\n',
);
const details: Array<NonNullable<GenerateDeclarationsOptions['detail']>> = [
  'full',
  'compact',
  'signatures',
  'auto',
];
const sets: Array<{ label: string; registry: Registry }> = [];
const generatedSets: Array<{ label: string; source: CodeModeToolSource }> = [
  {
    label: 'generated (53 of bench/generated-tools.ts)',
    source: recordingSource(generateTools(53)),
  },
  { label: 'generated (500)', source: recordingSource(generateTools(500)) },
];
sets.push({
  label: 'npm servers (memory + filesystem + everything)',
  registry: await startRegistry(servers, []),
});
sets.push({
  label: '50+ set (+ second filesystem root + native tools)',
  registry: await startRegistry(
    {
      ...servers,
      docs: {
        command: process.execPath,
        args: [serverBin('server-filesystem'), path.join(dir, 'docs')],
      },
    },
    ['hash', 'time', 'calculate'],
  ),
});
const tokenRows: Array<Record<string, string | number>> = [];
const goalLines: string[] = [];
let largestDescription = 0;
for (const { label, source } of [
  ...sets.map(({ label, registry }) => ({ label, source: registry as CodeModeToolSource })),
  ...generatedSets,
]) {
  const tools = source.listTools();
  const direct = openAiToolTokens(tools);
  for (const detail of details) {
    // `auto` is what createCodeMode uses when no detail is given.
    const mode = createCodeMode({
      source,
      ...(detail === 'auto' ? {} : { declarations: { detail } }),
    });
    const code = openAiToolTokens([mode.executeCodeTool]);
    const ratio = code / direct;
    tokenRows.push({
      'tool set': label,
      tools: tools.length,
      detail:
        detail === 'auto'
          ? `default (${mode.listedTools.length} declared, documented)`
          : `${detail} (all declared)`,
      'direct tokens': direct,
      'execute_code tokens': code,
      ratio: `${(ratio * 100).toFixed(1)}%`,
    });
    if (detail === 'auto') {
      largestDescription = Math.max(largestDescription, code);
      const goal = tools.length >= 500 ? 0.05 : tools.length >= 50 ? 0.3 : undefined;
      if (goal !== undefined)
        goalLines.push(
          `Goal (default <= ${goal * 100}% of direct at ${tools.length} tools, descriptions kept), ${label}: ` +
            `${code} / ${direct} = ${(ratio * 100).toFixed(1)}% → ${ratio <= goal ? 'goal met' : 'goal NOT met'}`,
        );
    }
    await mode.close();
  }
}
table(tokenRows);
for (const line of goalLines) console.log(line);
console.log(
  `Goal (default execute_code <= 2000 tokens at any tool count): largest ${largestDescription} → ${largestDescription <= 2000 ? 'goal met' : 'goal NOT met'}`,
);
console.log(
  'The default declares, documented (compact), as many tools as fit its budget (pinned tools first, then each\n' +
    "server's tools in turn) after one line per server; search('words') and describe('name') in the code reach\n" +
    'the rest. An explicit level declares every tool at that level. Direct definitions do not carry output\n' +
    'schemas; the code-mode declarations do (typed results).',
);

// ---------------------------------------------------------------------------------------------
console.log(
  '\n# 2. Type-check latency per script (50+ tool declarations; the first check parses the lib files)\n',
);
// What code mode checks against by default: the documented declarations of every tool.
const bigDeclarations = generateDeclarations(sets[1]!.registry.listTools(), { detail: 'compact' });
const checker = new CodeTypeChecker();
const scripts = [
  `const p = await memory__open_nodes({ names: ['project'] });\nconst n = await fs__read_text_file({ path: p.entities[0].observations[0] });\nreturn n.content.length;`,
  `const g = await memory__read_graph();\nreturn g.entities.map((e) => e.name);`,
  `const files = await fs__list_directory({ path: '.' });\nconsole.log(files.content);\nreturn files.content.split('\\n').length;`,
  `const [a, b] = await Promise.all([everything__get_sum({ a: 1, b: 2 }), calculate({ expression: '2*21' })]);\nreturn { a, b };`,
  `await memory__create_entities({ entities: [{ name: 'x', entityType: 'y', observations: [], extra: 1 }] });`,
];
const timings: number[] = [];
let cold = 0;
for (let i = 0; i < 60; i++) {
  const script = `${scripts[i % scripts.length]!}\n// run ${i}`;
  const started = performance.now();
  checker.check(normalizeScript(script).body, bigDeclarations.text, bigDeclarations.checkPrelude);
  const elapsed = performance.now() - started;
  if (i === 0) cold = elapsed;
  else timings.push(elapsed);
}
timings.sort((a, b) => a - b);
// The same against the 500 generated tools (code mode checks against every tool, listed or not).
const largeDeclarations = generateDeclarations(generatedSets[1]!.source.listTools(), {
  detail: 'compact',
});
const largeScript = normalizeScript(
  "const [hit] = await search('refund a payment');\nreturn await stripe__create_refund({ payment_intent_id: 'pi_1' });",
).body;
checker.check(largeScript, largeDeclarations.text, largeDeclarations.checkPrelude);
const largeTimings: number[] = [];
for (let i = 0; i < 20; i++) {
  const started = performance.now();
  checker.check(
    `${largeScript}\n// run ${i}`,
    largeDeclarations.text,
    largeDeclarations.checkPrelude,
  );
  largeTimings.push(performance.now() - started);
}
largeTimings.sort((a, b) => a - b);
const pct = (p: number) =>
  timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))]!;
const stripTimings: number[] = [];
for (let i = 0; i < 200; i++) {
  const started = performance.now();
  stripTypes(normalizeScript(scripts[i % scripts.length]!).body);
  stripTimings.push(performance.now() - started);
}
stripTimings.sort((a, b) => a - b);
table([
  { step: 'type check, first (parses lib + declarations)', ms: cold.toFixed(1) },
  { step: 'type check, warm p50', ms: pct(50).toFixed(1) },
  { step: 'type check, warm p95', ms: pct(95).toFixed(1) },
  { step: 'type check, warm p50, 500 generated tools', ms: largeTimings[10]!.toFixed(1) },
  { step: 'strip types (ts-blank-space) p50', ms: stripTimings[100]!.toFixed(2) },
]);

// ---------------------------------------------------------------------------------------------
console.log(
  '\n# 3. Model turns for a chain of 4 dependent tool calls (scripted model, real servers)\n',
);
// The task: memory says where the project notes are; the notes name the owner; memory has the
// owner's e-mail; write a contact card. Each call needs the previous call's result.
const chainRegistry = sets[0]!.registry;
const notes = path.join(dir, 'project-notes.txt');
await chainRegistry.callTool('fs__write_file', {
  path: notes,
  content: 'Project Apollo\nowner: Grace Hopper\n',
});
await chainRegistry.callTool('memory__create_entities', {
  entities: [
    { name: 'project', entityType: 'project', observations: [`notes file: ${notes}`] },
    { name: 'Grace Hopper', entityType: 'person', observations: ['email: grace@example.com'] },
  ],
});
const card = path.join(dir, 'contact-card.txt');
const userPrompt = `Write a contact card for the owner of the project to ${card}.`;

type Turn = { calls: ToolCall[] } | { text: string };
interface Transcript {
  turns: number;
  promptTokens: number;
  toolCalls: number;
}

/** Runs a scripted model until it answers; every turn pays for the tool list and the history. */
async function runLoop(tools: AnyTool[], model: (results: string[]) => Turn): Promise<Transcript> {
  const definitions = openAiToolTokens(tools);
  const history: string[] = [userPrompt];
  const results: string[] = [];
  let turns = 0;
  let promptTokens = 0;
  let toolCalls = 0;
  for (;;) {
    turns++;
    promptTokens += definitions + countTokens(history.join('\n'));
    const turn = model(results);
    if ('text' in turn) return { turns, promptTokens, toolCalls };
    history.push(JSON.stringify(turn.calls));
    toolCalls += turn.calls.length;
    const answered = await executeToolCalls(turn.calls, tools);
    for (const result of answered) {
      if (result.isError) throw new Error(`tool failed: ${toolResultText(result)}`);
      const text = toolResultText(result);
      results.push(text);
      history.push(text);
    }
  }
}

let callId = 0;
const call = (name: string, args: Record<string, unknown>): Turn => ({
  calls: [{ id: `call_${++callId}`, name, arguments: args }],
});
const directModel = (results: string[]): Turn => {
  const last = results.at(-1) ?? '';
  switch (results.length) {
    case 0:
      return call('memory__open_nodes', { names: ['project'] });
    case 1:
      return call('fs__read_text_file', { path: /notes file: ([^"\\]+)/.exec(last)![1]! });
    case 2:
      return call('memory__open_nodes', { names: [/owner: ([^\n\\"]+)/.exec(last)![1]!] });
    case 3: {
      const email = /email: ([^"\\]+)/.exec(last)![1]!;
      return call('fs__write_file', { path: card, content: `Grace Hopper <${email}>` });
    }
    default:
      return { text: `Done: wrote ${card}.` };
  }
};
const codeScript = `
const project = await memory__open_nodes({ names: ['project'] });
const notesPath = project.entities[0].observations[0].replace('notes file: ', '');
const notes = await fs__read_text_file({ path: notesPath });
const owner = /owner: (.+)/.exec(notes.content)![1];
const person = await memory__open_nodes({ names: [owner] });
const email = person.entities[0].observations.find((o) => o.startsWith('email: '))!.slice(7);
await fs__write_file({ path: ${JSON.stringify(card)}, content: owner + ' <' + email + '>' });
return { owner, email };`;
const executor = createQuickJSExecutor({ poolSize: 1 });
const chainMode = createCodeMode({ source: chainRegistry, executor });
const codeModel = (results: string[]): Turn =>
  results.length === 0
    ? call('execute_code', { code: codeScript })
    : { text: `Done: wrote ${card}.` };

const direct = await runLoop(chainRegistry.asTools(), directModel);
const code = await runLoop(chainMode.tools, codeModel);
table([
  {
    mode: 'direct',
    'model turns': direct.turns,
    'tool calls by the model': direct.toolCalls,
    'prompt tokens (all turns)': direct.promptTokens,
  },
  {
    mode: 'code',
    'model turns': code.turns,
    'tool calls by the model': code.toolCalls,
    'prompt tokens (all turns)': code.promptTokens,
  },
]);
console.log(
  `turns saved: ${direct.turns - code.turns} of ${direct.turns} (the 4 tool calls ran inside one execute_code call)`,
);

// ---------------------------------------------------------------------------------------------
console.log(
  '\n# 4. search(): 20 tasks over 500 generated tools, one execute_code call each (scripted model)\n',
);
const searchMode = createCodeMode({ source: generatedSets[1]!.source, executor });
const outcomes = await runSearchTasks(searchMode);
table(
  outcomes.map((outcome) => ({
    task:
      outcome.task.task.length > 60 ? `${outcome.task.task.slice(0, 57)}...` : outcome.task.task,
    expected: outcome.task.expected,
    called: outcome.called ?? `(none: ${outcome.error ?? 'no call'})`,
    ok: outcome.ok ? 'yes' : 'NO',
  })),
);
const solved = outcomes.filter((outcome) => outcome.ok).length;
console.log(
  `search task score: ${solved} / ${outcomes.length} → ${solved === outcomes.length ? 'goal met' : 'goal NOT met'}`,
);
await searchMode.close();

await chainMode.close();
await executor.close();
for (const { registry } of sets) await registry.close();
rmSync(dir, { recursive: true, force: true });
