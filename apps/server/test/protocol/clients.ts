import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResultSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** What a client answers the server's requests with: the same on every route. */
export const ROOTS = [{ uri: 'file:///srv/project', name: 'project' }];
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

export function elicited(params: { mode?: string }) {
  return params.mode === 'url'
    ? { action: 'accept' as const }
    : { action: 'accept' as const, content: { name: 'Ada', check: true } };
}

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
  close(): Promise<void>;
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
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  return {
    kind: `sdk-v2-${mode}`,
    seen,
    logs,
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
    close: () => client.close(),
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
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  return {
    kind: 'sdk-v1',
    seen,
    logs,
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
    request: (method, params) => client.request({ method, params } as never, ResultSchema),
    async setRoots(next) {
      roots = next;
      await client.sendRootsListChanged();
    },
    close: () => client.close(),
  };
}
