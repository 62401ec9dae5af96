import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import {
  createApplicationInputHandler,
  createTaskSessionFromClient,
} from '@modelcontextprotocol/ext-tasks/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** What a client answers the server's requests with: the same on every route. */
const ROOTS = [{ uri: 'file:///srv/project', name: 'project' }];
export const NEW_ROOTS = [
  { uri: 'file:///srv/project', name: 'project' },
  { uri: 'file:///srv/docs', name: 'docs' },
];

export function sampled(params: { messages?: Array<{ content?: unknown }> }) {
  const last = params.messages?.[params.messages.length - 1]?.content as
    { text?: string } | undefined;
  return {
    role: 'assistant' as const,
    content: { type: 'text' as const, text: `sampled: ${last?.text ?? ''}` },
    model: 'test-model',
    stopReason: 'endTurn',
  };
}

/** A form filled the same way on every route: each required field, plus name and check. */
function elicited(params: {
  mode?: string;
  requestedSchema?: { properties?: Record<string, Record<string, unknown>>; required?: string[] };
}) {
  if (params.mode === 'url') return { action: 'accept' as const };
  const properties = params.requestedSchema?.properties ?? {};
  const content: Record<string, unknown> = {};
  for (const key of params.requestedSchema?.required ?? []) {
    const field = properties[key] ?? {};
    const choices = (field.oneOf ?? field.anyOf) as Array<{ const?: unknown }> | undefined;
    content[key] =
      field.default ??
      choices?.[0]?.const ??
      (field.enum as unknown[] | undefined)?.[0] ??
      (field.type === 'boolean'
        ? true
        : field.type === 'number' || field.type === 'integer'
          ? 1
          : 'Ada');
  }
  if (properties.name) content.name = 'Ada';
  if (properties.check) content.check = true;
  return { action: 'accept' as const, content };
}

/** A result schema that takes any object (for raw requests: tasks/*, logging/setLevel). */
const ANY_RESULT = {
  '~standard': {
    version: 1,
    vendor: 'protocol-test',
    validate: (value: unknown) => ({ value }),
  },
} as const;

/** A server-to-client request as a client saw it (method and mode). */
export interface SeenRequest {
  method: string;
  mode?: string;
}

/** The parts of an official SDK client the protocol tests drive, whatever its version. */
export interface ProtocolClient {
  readonly kind: string;
  /** Requests the server sent this client (sampling, elicitation, roots). */
  readonly seen: SeenRequest[];
  /** Log messages the server sent. */
  readonly logs: unknown[];
  /** URIs of `notifications/resources/updated` the server sent. */
  readonly updates: string[];
  /** Answer elicitations never (a person who walked away). */
  silent: boolean;
  listTools(): Promise<Array<{ name: string; execution?: unknown }>>;
  callTool(
    name: string,
    args: Record<string, unknown>,
    options?: { onProgress?: (progress: unknown) => void; timeoutMs?: number },
  ): Promise<unknown>;
  /** A raw request (tasks/*, logging/setLevel, resources/subscribe). */
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
  setRoots(roots: typeof ROOTS): Promise<void>;
  /** Tasks as this client's own API drives them. */
  readonly tasks: TaskApi;
  close(): Promise<void>;
}

/** A task as a client sees it. */
interface TaskView {
  taskId: string;
  status: string;
  pollInterval?: number;
  statusMessage?: string;
}

interface TaskApi {
  /** Calls a tool as a task; resolves with the task as created. */
  start(name: string, args: Record<string, unknown>): Promise<TaskView>;
  get(taskId: string): Promise<TaskView>;
  /** The task's result (waits for its end; input it needs is asked of this client meanwhile). */
  result(taskId: string): Promise<unknown>;
  list(): Promise<TaskView[]>;
  cancel(taskId: string): Promise<void>;
}

/** Tasks over raw JSON-RPC requests (2025-11-25 wire shapes). */
function rawTasks(request: ProtocolClient['request']): TaskApi {
  return {
    async start(name, args) {
      const created = (await request('tools/call', {
        name,
        arguments: args,
        task: { ttl: 60_000 },
      })) as { task: TaskView };
      return created.task;
    },
    get: (taskId) => request('tasks/get', { taskId }) as Promise<TaskView>,
    result: (taskId) => request('tasks/result', { taskId }),
    list: async () => ((await request('tasks/list', {})) as { tasks: TaskView[] }).tasks,
    async cancel(taskId) {
      await request('tasks/cancel', { taskId });
    },
  };
}

const CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/** The official TypeScript SDK v2 client (`@modelcontextprotocol/client`). */
export async function sdkV2Client(
  url: string,
  mode: 'legacy' | 'auto' | 'modern',
  headers: Record<string, string> = {},
): Promise<ProtocolClient> {
  let roots = ROOTS;
  const seen: SeenRequest[] = [];
  const logs: unknown[] = [];
  const updates: string[] = [];
  const client = new ClientV2({ name: 'protocol-test', version: '1.0.0' }, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: mode === 'modern' ? { pin: '2026-07-28' } : mode },
  } as never);
  const state = { silent: false };
  client.setRequestHandler('sampling/createMessage', async (request) => {
    seen.push({ method: 'sampling/createMessage' });
    return sampled(request.params as never) as never;
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as { mode?: string };
    seen.push({ method: 'elicitation/create', mode: params.mode ?? 'form' });
    if (state.silent) return new Promise(() => {});
    return elicited(params) as never;
  });
  client.setRequestHandler('roots/list', async () => {
    seen.push({ method: 'roots/list' });
    return { roots };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    logs.push(notification.params);
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    updates.push((notification.params as { uri: string }).uri);
  });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  // ext-tasks over the SDK client (2025-11-25 wire shapes); made on first use.
  let made: ReturnType<typeof createTaskSessionFromClient> | undefined;
  const sessionOf = () => (made ??= createTaskSessionFromClient(client, { endpointId: url }));
  const tasks: TaskApi = {
    async start(name, args) {
      const execution = await sessionOf().callTool(name, args as never, {
        task: { preference: 'require', retentionMs: 60_000 },
      });
      if (execution.kind !== 'task') throw new Error(`${name} did not run as a task`);
      return this.get(execution.handle.taskId);
    },
    async get(taskId) {
      const view = await sessionOf()
        .task(taskId as never)
        .snapshot();
      return { ...view, taskId: view.taskId as string } as TaskView;
    },
    // The SDK's own request (its elicitation handler answers the input the task asks for on the
    // way): ext-tasks' result() waits for input routed through its own input handler instead.
    result: (taskId) =>
      client.request(
        { method: 'tasks/result', params: { taskId } } as never,
        ANY_RESULT as never,
        { timeout: 60_000 } as never,
      ) as Promise<unknown>,
    async list() {
      const page = await sessionOf().listTasks();
      return page.tasks.map((task) => ({ ...task, taskId: task.taskId as string }) as TaskView);
    },
    cancel: (taskId) => sessionOf().cancelTask(taskId as never),
  };
  return {
    kind: `sdk-v2-${mode}`,
    tasks,
    seen,
    logs,
    updates,
    get silent() {
      return state.silent;
    },
    set silent(value) {
      state.silent = value;
    },
    async listTools() {
      return (await client.listTools()).tools as never;
    },
    callTool: (name, args, options = {}) =>
      client.callTool({ name, arguments: args }, {
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        timeout: options.timeoutMs ?? 60_000,
      } as never),
    request: (method, params) => client.request({ method, params } as never, undefined as never),
    async setRoots(next) {
      roots = next;
      await client.sendRootsListChanged();
    },
    close: async () => {
      await made?.close();
      await client.close();
    },
  };
}

/** The official TypeScript SDK v1 client (`@modelcontextprotocol/sdk`), 2025-11-25 only. */
export async function sdkV1Client(
  url: string,
  headers: Record<string, string> = {},
): Promise<ProtocolClient> {
  let roots = ROOTS;
  const seen: SeenRequest[] = [];
  const logs: unknown[] = [];
  const updates: string[] = [];
  const state = { silent: false };
  const client = new ClientV1(
    { name: 'protocol-test', version: '1.0.0' },
    { capabilities: CAPABILITIES },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    seen.push({ method: 'sampling/createMessage' });
    return sampled(request.params as never) as never;
  });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string };
    seen.push({ method: 'elicitation/create', mode: params.mode ?? 'form' });
    if (state.silent) return new Promise(() => {});
    return elicited(params) as never;
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    seen.push({ method: 'roots/list' });
    return { roots };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  const request: ProtocolClient['request'] = (method, params) =>
    client.request({ method, params } as never, ResultSchema);
  return {
    kind: 'sdk-v1',
    tasks: rawTasks(request),
    seen,
    logs,
    updates,
    get silent() {
      return state.silent;
    },
    set silent(value) {
      state.silent = value;
    },
    async listTools() {
      return (await client.listTools()).tools as never;
    },
    callTool: (name, args, options = {}) =>
      client.callTool({ name, arguments: args }, undefined, {
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        timeout: options.timeoutMs ?? 60_000,
      } as never),
    request,
    async setRoots(next) {
      roots = next;
      await client.sendRootsListChanged();
    },
    close: () => client.close(),
  };
}

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * Tasks of the 2026-07-28 tasks extension as `@modelcontextprotocol/ext-tasks` drives them over
 * the official v2 client: requests framed for 2026-07-28 and sent over HTTP as they are.
 */
export function extTasksModern(
  url: string,
  asked: SeenRequest[],
  headers: Record<string, string> = {},
) {
  const clientInfo = { name: 'protocol-test', version: '1.0.0' };
  const clientCapabilities = { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } };
  let sequence = 0;
  const rawDispatch = async (request: unknown): Promise<never> => {
    const body = request as { method: string; params?: Record<string, unknown> };
    const name =
      body.method === 'tools/call' ? body.params?.name : (body.params?.taskId as unknown);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': body.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++sequence, ...body }),
    });
    const textBody = await response.text();
    if (response.headers.get('content-type')?.includes('text/event-stream')) {
      const last = textBody
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .pop();
      return JSON.parse(last!.slice(6)) as never;
    }
    return JSON.parse(textBody) as never;
  };
  return async (client: ClientV2) =>
    createTaskSessionFromClient(client, {
      endpointId: `${url}#modern`,
      rawDispatch: rawDispatch as never,
      v2RequestFraming: {
        protocolVersion: '2026-07-28',
        clientInfo,
        clientCapabilities: clientCapabilities as never,
      },
      onInputRequest: createApplicationInputHandler({
        elicitation: (request) => {
          asked.push({ method: 'elicitation/create', mode: String(request.params.mode ?? 'form') });
          return elicited(request.params as never) as never;
        },
        sampling: (request) => {
          asked.push({ method: 'sampling/createMessage' });
          return sampled(request.params as never) as never;
        },
        roots: () => {
          asked.push({ method: 'roots/list' });
          return { roots: ROOTS } as never;
        },
      }),
    });
}
