import { estimateTokens, searchTerms, type SearchableTool } from '@toolwire/schema';
import type { Declarations } from './declarations.js';

/** Default of `descriptionBudgetTokens`: the whole `execute_code` description, at any tool count. */
export const DEFAULT_DESCRIPTION_BUDGET_TOKENS = 1300;

interface ServerSummary {
  name: string;
  /** The server's `instructions` (MCP initialize result), when it sent some. */
  instructions?: string | undefined;
}

export interface ExecuteCodeDescriptionInput {
  tools: readonly SearchableTool[];
  typecheck: 'off' | 'warn' | 'error';
  /** The declarations of every tool (what the code is checked against); listed ones are cut from it. */
  declarations: Declarations;
  /** `true` for `detail: 'auto'`: declare what fits the budget; else every tool. */
  budgeted: boolean;
  /** Tool names declared first, whatever the budget leaves. */
  pinnedTools: readonly string[];
  budgetTokens: number;
  servers: readonly ServerSummary[];
}

export interface ExecuteCodeDescription {
  text: string;
  /** The tools declared in the description, in the order written; the rest are found by `search`. */
  listed: string[];
}

/**
 * The `execute_code` description: how to write the code, one line per server saying what it
 * offers, and tool declarations. With `detail: 'auto'` (the default) the declarations are the
 * documented (`compact`) ones of as many tools as fit `budgetTokens` with everything else, most
 * useful first: pinned tools, then the servers' tools taken in turn (each server's first tool, then
 * each one's second, …). The others are reachable through `search()` and `describe()`, so the
 * description stays about the same size at 50 tools or 5,000. An explicit detail level declares
 * every tool at that level, whatever it costs.
 */
export function executeCodeDescription(input: ExecuteCodeDescriptionInput): ExecuteCodeDescription {
  const names = input.tools.map((tool) => tool.name);
  if (!input.budgeted) return { text: compose(input, names, names.length), listed: names };
  const order = priorityOrder(input.tools, input.pinnedTools);
  const fits = (count: number) =>
    estimateTokens(compose(input, order.slice(0, count), names.length)) <= input.budgetTokens;
  let count = order.length;
  if (!fits(count)) {
    // The largest prefix of the priority order that fits (the cost grows with the prefix).
    let low = 0;
    let high = order.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (fits(middle)) low = middle;
      else high = middle - 1;
    }
    count = low;
  }
  const listed = inWrittenOrder(order.slice(0, count), input.tools, input.pinnedTools);
  return { text: compose(input, listed, names.length), listed };
}

function compose(
  input: ExecuteCodeDescriptionInput,
  listed: readonly string[],
  total: number,
): string {
  const lines = [
    'Runs TypeScript calling the functions below; returns its console output and return value.',
    'Write a function body: top-level await, `return` only what you need (JSON). All functions are async (use Promise.all for parallel calls); failed calls throw. No imports, network, files, timers.',
  ];
  if (input.typecheck === 'error')
    lines.push(
      'It is type-checked first: on type errors nothing runs and you get them with the expected types.',
    );
  else if (input.typecheck === 'warn') lines.push('Type errors are reported next to the output.');
  const hidden = total - listed.length;
  if (hidden > 0) {
    lines.push(
      `${listed.length} of the ${total} tools are declared below. \`await search('what to do', { limit: 5 })\` finds any tool (best match first) as [{ name, identifier, description, signature }]; call it by its identifier, or as \`(tools as any)[hit.identifier](input)\` in the same run.`,
    );
  }
  if (input.declarations.detail !== 'full')
    lines.push("`console.log(await describe('name'))` prints a tool's documented declaration.");
  const servers = serverLines(input);
  if (servers.length > 0) lines.push('Servers:', ...servers);
  const declarations =
    listed.length === total ? input.declarations.text : input.declarations.subset(listed);
  if (declarations.trim() === '') return lines.join('\n');
  return [...lines, '```ts', declarations.trimEnd(), '```'].join('\n');
}

/** The server a tool belongs to: its `source`, else the part of its name before `__`. */
function serverOf(tool: SearchableTool): string | undefined {
  if (typeof tool.source === 'string' && tool.source !== '') return tool.source;
  const separator = tool.name.indexOf('__');
  return separator > 0 ? tool.name.slice(0, separator) : undefined;
}

/** Pinned tools in the order given, then the servers' tools taken in turn. */
function priorityOrder(tools: readonly SearchableTool[], pinned: readonly string[]): string[] {
  const known = new Set(tools.map((tool) => tool.name));
  const order = [...new Set(pinned.filter((name) => known.has(name)))];
  const taken = new Set(order);
  const queues = new Map<string, string[]>();
  for (const tool of tools) {
    if (taken.has(tool.name)) continue;
    const server = serverOf(tool) ?? '';
    let queue = queues.get(server);
    if (queue === undefined) queues.set(server, (queue = []));
    queue.push(tool.name);
  }
  const lists = [...queues.values()];
  for (let index = 0; lists.some((list) => index < list.length); index++) {
    for (const list of lists) if (index < list.length) order.push(list[index]!);
  }
  return order;
}

/** Pinned first, then the chosen tools in the source's order (so each server's tools stay together). */
function inWrittenOrder(
  chosen: readonly string[],
  tools: readonly SearchableTool[],
  pinned: readonly string[],
): string[] {
  const set = new Set(chosen);
  const first = [...new Set(pinned.filter((name) => set.has(name)))];
  const rest = tools
    .map((tool) => tool.name)
    .filter((name) => set.has(name) && !first.includes(name));
  return [...first, ...rest];
}

const COMMON_VERBS = new Set(
  searchTerms(
    'get list create delete update set add remove read write search find send run execute fetch make show check',
  ),
);

/**
 * One line per server: its instructions' first sentence when it sent some, else the things its
 * tools act on (the most frequent words of their names).
 */
function serverLines(input: ExecuteCodeDescriptionInput): string[] {
  const byServer = new Map<string, SearchableTool[]>();
  for (const tool of input.tools) {
    const server = serverOf(tool);
    if (server === undefined) continue;
    let list = byServer.get(server);
    if (list === undefined) byServer.set(server, (list = []));
    list.push(tool);
  }
  const instructions = new Map(
    input.servers.map((server) => [server.name, server.instructions?.trim() ?? '']),
  );
  return [...byServer].map(([server, tools]) => {
    const said = instructions.get(server);
    const what = said ? firstSentence(said) : topicsOf(server, tools);
    return `- ${server} (${tools.length} tool${tools.length === 1 ? '' : 's'})${what ? `: ${what}` : ''}`;
  });
}

/** The first sentence of the first prose line (markdown headings skipped: `# Server Instructions`). */
function firstSentence(text: string): string {
  const lines = text.split('\n').map((part) => part.trim());
  const line =
    lines.find((part) => part !== '' && !part.startsWith('#')) ??
    lines.find((part) => part !== '')!.replace(/^#+\s*/, '');
  const end = line.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? line : line.slice(0, end);
  return sentence.length > 120 ? `${sentence.slice(0, 117).trimEnd()}…` : sentence;
}

/** The most frequent non-verb words of the tools' names (without the server's own name). */
function topicsOf(server: string, tools: readonly SearchableTool[]): string {
  const serverWords = new Set(searchTerms(server));
  const counts = new Map<string, { count: number; word: string; first: number }>();
  let position = 0;
  for (const tool of tools) {
    const local = tool.name.startsWith(`${server}__`)
      ? tool.name.slice(server.length + 2)
      : tool.name;
    for (const word of local
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)) {
      const [term] = searchTerms(word);
      if (term === undefined || COMMON_VERBS.has(term) || serverWords.has(term)) continue;
      const entry = counts.get(term) ?? { count: 0, word, first: position++ };
      entry.count++;
      counts.set(term, entry);
    }
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count || a.first - b.first)
    .slice(0, 6)
    .map((entry) => entry.word)
    .join(', ');
}
