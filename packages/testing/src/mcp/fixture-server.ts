// An MCP server for failure cases: slow, crashing, changing tool list, bad schemas, pagination.
// Self-contained on purpose (no relative imports): `node fixture-server.ts` runs it over stdio with
// Node's type stripping, options in the FIXTURE_OPTIONS environment variable (JSON).
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Server } from '@modelcontextprotocol/server';
import type { CallToolResult, Tool } from '@modelcontextprotocol/server';

/** A tool definition served as is (it may be broken on purpose); calls echo the arguments. */
export interface FixtureToolDefinition {
  name: string;
  description?: string;
  inputSchema: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

export type FixtureBuiltinTool =
  | 'echo'
  | 'add'
  | 'slow'
  | 'crash'
  | 'fail'
  | 'content'
  | 'bad_structured'
  | 'change_tools'
  | 'change_lists';

export interface FixtureOptions {
  /** serverInfo.name (default "toolwire-fixture"). */
  name?: string;
  /** Built-in tools to serve (default: all but `change_lists`, which is opt-in). */
  tools?: FixtureBuiltinTool[];
  /** Extra tools served verbatim, e.g. with broken schemas or colliding names. */
  extraTools?: FixtureToolDefinition[];
  /** Split tools/list into pages of this size. */
  pageSize?: number;
  /** Wait this long before answering tools/list. */
  listDelayMs?: number;
  /** Answer tools/list with a JSON-RPC error once this many listings have succeeded. */
  listFailsAfter?: number;
  /** stdio: wait this long before reading stdin (a slow start). */
  startupDelayMs?: number;
  /** stdio: write this to stderr and exit with code 3 at once. */
  crashOnStart?: string;
  /** The `crash` tool writes this to stderr before it exits (default: a line without secrets). */
  crashStderr?: string;
  /** stdio: exit with code 4 this long after start. */
  exitAfterMs?: number;
  /** Append one JSON line per call and per cancellation here (stdio runs in its own process). */
  logFile?: string;
  /**
   * Serve a resource (`fixture://<name>/secret`), a template (`fixture://<name>/items/{id}`), a prompt (`greet`,
   * argument `name` with completions) and accept resources/subscribe: the surface around tools.
   */
  catalog?: boolean;
}

export interface FixtureEvent {
  type: 'call' | 'cancelled' | 'progress-done';
  tool: string;
  arguments?: unknown;
  at: number;
}

const builtinTools: FixtureBuiltinTool[] = [
  'echo',
  'add',
  'slow',
  'crash',
  'fail',
  'content',
  'bad_structured',
  'change_tools',
];

const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const definitions: Record<FixtureBuiltinTool, Tool> = {
  echo: {
    name: 'echo',
    description: 'Echoes the text back, prefixed with "echo: ".',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
  },
  add: {
    name: 'add',
    description: 'Adds two numbers and returns the sum as structured content.',
    inputSchema: {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  slow: {
    name: 'slow',
    description:
      'Waits ms milliseconds in steps, reporting progress after each step; honours cancellation.',
    inputSchema: {
      type: 'object',
      properties: { ms: { type: 'number' }, steps: { type: 'integer', minimum: 1 } },
      required: ['ms'],
    },
  },
  crash: {
    name: 'crash',
    description: 'Makes the server process exit at once (code 7) without answering.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { destructiveHint: true },
  },
  fail: {
    name: 'fail',
    description: 'Answers with isError true and the given message.',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
  },
  content: {
    name: 'content',
    description: 'Answers with text, an image, an embedded resource and a resource link.',
    inputSchema: { type: 'object', properties: {} },
  },
  bad_structured: {
    name: 'bad_structured',
    description: 'Declares an output schema and returns structured content that violates it.',
    inputSchema: { type: 'object', properties: {} },
    outputSchema: {
      type: 'object',
      properties: { value: { type: 'number' } },
      required: ['value'],
    },
  },
  change_lists: {
    name: 'change_lists',
    description:
      'Sends notifications/prompts/list_changed and/or notifications/resources/list_changed (stdio only).',
    inputSchema: {
      type: 'object',
      properties: { prompts: { type: 'boolean' }, resources: { type: 'boolean' } },
    },
  },
  change_tools: {
    name: 'change_tools',
    description:
      'Changes the tool list (add a tool, remove one, or mark echo destructive) and sends notifications/tools/list_changed.',
    inputSchema: {
      type: 'object',
      properties: {
        add: { type: 'string' },
        remove: { type: 'string' },
        destructiveEcho: { type: 'boolean' },
      },
    },
  },
};

/** Mutable state shared by every Server instance made from one set of options (HTTP makes one per request). */
export interface FixtureState {
  options: FixtureOptions;
  added: string[];
  removed: Set<string>;
  destructiveEcho: boolean;
  events: FixtureEvent[];
  /** Servers to notify of list changes (stdio: the one server; stateless HTTP: none). */
  servers: Set<Server>;
  /** How many tools/list requests were answered. */
  listings: number;
  /** Also told of list changes (HTTP: publishes to 2026-07-28 `subscriptions/listen` streams). */
  onToolsChanged?: () => void;
}

export function createFixtureState(options: FixtureOptions = {}): FixtureState {
  return {
    options,
    added: [],
    removed: new Set(),
    destructiveEcho: false,
    events: [],
    servers: new Set(),
    listings: 0,
  };
}

function record(state: FixtureState, event: Omit<FixtureEvent, 'at'>): void {
  const full = { ...event, at: Date.now() };
  state.events.push(full);
  if (state.options.logFile) appendFileSync(state.options.logFile, `${JSON.stringify(full)}\n`);
}

function currentTools(state: FixtureState): Tool[] {
  const names = state.options.tools ?? builtinTools;
  const tools: Tool[] = names
    .filter((name) => !state.removed.has(name))
    .map((name) => definitions[name]);
  if (state.destructiveEcho) {
    const index = tools.findIndex((tool) => tool.name === 'echo');
    if (index >= 0)
      tools[index] = {
        ...tools[index]!,
        annotations: { readOnlyHint: false, destructiveHint: true },
      };
  }
  for (const extra of state.options.extraTools ?? [])
    if (!state.removed.has(extra.name)) tools.push(extra as unknown as Tool);
  for (const name of state.added) {
    if (!state.removed.has(name))
      tools.push({
        name,
        description: `A tool added at run time (${name}).`,
        inputSchema: { type: 'object', properties: {} },
      });
  }
  return tools;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('cancelled'));
      },
      { once: true },
    );
  });

const SECRET_TEXT = 'the fixture secret';

/** The `catalog` option: one resource, one template, one prompt with completions, subscriptions. */
function serveCatalog(server: Server, name: string): void {
  const base = `fixture://${name}`;
  server.setRequestHandler('resources/list', async () => ({
    resources: [{ uri: `${base}/secret`, name: 'secret', mimeType: 'text/plain' }],
  }));
  server.setRequestHandler('resources/templates/list', async () => ({
    resourceTemplates: [{ uriTemplate: `${base}/items/{id}`, name: 'item' }],
  }));
  server.setRequestHandler('resources/read', async (request) => {
    const uri = request.params.uri;
    if (uri === `${base}/secret`) return { contents: [{ uri, text: SECRET_TEXT }] };
    const item = uri.startsWith(`${base}/items/`) ? [uri, uri.slice(base.length + 7)] : null;
    if (item) return { contents: [{ uri, text: `item ${item[1]}` }] };
    throw new Error(`Resource not found: ${uri}`);
  });
  server.setRequestHandler('resources/subscribe', async () => ({}));
  server.setRequestHandler('resources/unsubscribe', async () => ({}));
  server.setRequestHandler('prompts/list', async () => ({
    prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name' }] }],
  }));
  server.setRequestHandler('prompts/get', async (request) => ({
    messages: [
      {
        role: 'user',
        content: { type: 'text', text: `Hello, ${String(request.params.arguments?.name)}` },
      },
    ],
  }));
  server.setRequestHandler('completion/complete', async (request) => {
    const prefix = request.params.argument.value;
    const values = ['alice', 'bob', 'carol'].filter((v) => v.startsWith(prefix));
    return { completion: { values, total: values.length, hasMore: false } };
  });
}

/** A low-level MCP server with the fixture's tools over the given state. */
export function createFixtureServer(
  state: FixtureState,
  options: { connected?: boolean } = {},
): Server {
  const server = new Server(
    { name: state.options.name ?? 'toolwire-fixture', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { listChanged: true, ...(state.options.catalog ? { subscribe: true } : {}) },
        ...(state.options.catalog ? { completions: {} } : {}),
      },
    },
  );
  // Connected servers (stdio) notify on their session; per-request HTTP servers publish through
  // `onToolsChanged` instead (sending on a finished request's server would wait forever).
  if (options.connected ?? !state.onToolsChanged) {
    state.servers.add(server);
    server.onclose = () => state.servers.delete(server);
  }

  if (state.options.catalog) serveCatalog(server, state.options.name ?? 'toolwire-fixture');
  else {
    // No prompts or resources; the capabilities exist so list_changed for them can be tested.
    server.setRequestHandler('prompts/list', async () => ({ prompts: [] }));
    server.setRequestHandler('resources/list', async () => ({ resources: [] }));
  }

  server.setRequestHandler('tools/list', async (request) => {
    if (state.options.listDelayMs) await sleep(state.options.listDelayMs);
    if (
      state.options.listFailsAfter !== undefined &&
      state.listings >= state.options.listFailsAfter
    ) {
      throw new Error('tools/list is failing on purpose');
    }
    state.listings++;
    const tools = currentTools(state);
    const size = state.options.pageSize;
    if (!size) return { tools };
    const start = Number(request.params?.cursor ?? 0);
    const next = start + size;
    return {
      tools: tools.slice(start, next),
      ...(next < tools.length ? { nextCursor: String(next) } : {}),
    };
  });

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult> => {
    const name = request.params.name;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    record(state, { type: 'call', tool: name, arguments: args });
    const known = currentTools(state).find((tool) => tool.name === name);
    if (!known) return { content: [{ type: 'text', text: `unknown tool ${name}` }], isError: true };
    switch (name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${String(args.text)}` }] };
      case 'add': {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
      }
      case 'slow': {
        const steps = Number(args.steps ?? 4);
        const token = request.params._meta?.progressToken;
        try {
          for (let step = 1; step <= steps; step++) {
            await sleep(Number(args.ms) / steps, ctx.mcpReq.signal);
            if (token !== undefined) {
              await ctx.mcpReq.notify({
                method: 'notifications/progress',
                params: {
                  progressToken: token,
                  progress: step,
                  total: steps,
                  message: `step ${step}`,
                },
              });
            }
          }
        } catch {
          record(state, { type: 'cancelled', tool: name });
          return { content: [{ type: 'text', text: 'cancelled' }], isError: true };
        }
        record(state, { type: 'progress-done', tool: name });
        return { content: [{ type: 'text', text: `waited ${String(args.ms)} ms` }] };
      }
      case 'crash':
        process.stderr.write(`${state.options.crashStderr ?? 'fixture: crashing on purpose'}\n`);
        process.exit(7);
        break;
      case 'fail':
        return {
          content: [{ type: 'text', text: String(args.message ?? 'failure requested') }],
          isError: true,
        };
      case 'content':
        return {
          content: [
            { type: 'text', text: 'mixed content' },
            { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: {
                uri: 'fixture://note.txt',
                mimeType: 'text/plain',
                text: 'embedded note',
              },
            },
            {
              type: 'resource_link',
              uri: 'fixture://other.bin',
              name: 'other.bin',
              mimeType: 'application/octet-stream',
            },
          ],
        };
      case 'bad_structured':
        return {
          content: [{ type: 'text', text: '{"value":"nope"}' }],
          structuredContent: { value: 'nope' },
        };
      case 'change_lists': {
        for (const target of state.servers) {
          if (args.prompts === true) await target.sendPromptListChanged().catch(() => undefined);
          if (args.resources === true)
            await target.sendResourceListChanged().catch(() => undefined);
        }
        return { content: [{ type: 'text', text: 'lists changed' }] };
      }
      case 'change_tools': {
        if (typeof args.add === 'string') state.added.push(args.add);
        if (typeof args.remove === 'string') state.removed.add(args.remove);
        if (typeof args.destructiveEcho === 'boolean') state.destructiveEcho = args.destructiveEcho;
        state.onToolsChanged?.();
        for (const target of state.servers)
          await target.sendToolListChanged().catch(() => undefined);
        return { content: [{ type: 'text', text: 'tool list changed' }] };
      }
      default:
        return { content: [{ type: 'text', text: JSON.stringify(args) }] };
    }
  });
  return server;
}

async function runStdio(): Promise<void> {
  const options = JSON.parse(process.env.FIXTURE_OPTIONS ?? '{}') as FixtureOptions;
  if (options.crashOnStart !== undefined) {
    process.stderr.write(`${options.crashOnStart}\n`);
    process.exit(3);
  }
  if (options.startupDelayMs) await sleep(options.startupDelayMs);
  if (options.exitAfterMs) setTimeout(() => process.exit(4), options.exitAfterMs);
  const { StdioServerTransport } = await import('@modelcontextprotocol/server/stdio');
  const server = createFixtureServer(createFixtureState(options));
  await server.connect(new StdioServerTransport());
  process.stderr.write(
    `fixture ${options.name ?? 'toolwire-fixture'} ready (pid ${process.pid})\n`,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runStdio().catch((error: unknown) => {
    process.stderr.write(`fixture failed: ${String(error)}\n`);
    process.exit(1);
  });
}
