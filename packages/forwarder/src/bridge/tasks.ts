import { randomBytes } from 'node:crypto';
import type { AuthToken } from '@toolwire/config';
import type { CallPipeline } from '../call/call-pipeline.js';
import { isSessionGone } from '../call/execute-upstream.js';
import {
  UpstreamError,
  type ServerRequestAnswer,
  type UpstreamMessage,
  type UpstreamRequestOptions,
} from '../http-upstream.js';
import { INTERNAL_ERROR, INVALID_PARAMS, isRecord, JsonRpcFault } from '../json-rpc.js';
import type { RecordStore } from '../session-store.js';

const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** A task as the gateway keeps it: whose it is and where it runs. */
export interface TaskRecord {
  /** The id the client sees (ours: unguessable, namespaced by nothing it could forge). */
  id: string;
  server: string;
  /** The upstream's own task id. */
  upstreamId: string;
  /** The upstream session the task lives in (`null`: a 2026-07-28 upstream). */
  session: string | null;
  /** Fingerprint of the token that created it ('' without auth). */
  owner: string;
  /** Where `tasks/list` finds it: the owner with auth, else the creating session. */
  scope: string;
  /** The namespaced tool name (policy is checked against it on every use). */
  tool: string;
  createdAt: string;
  ttl: number | null;
  /** Set once the gateway saw the task fail for a reason of its own (the upstream went away). */
  failure?: { message: string; at: string };
}

/** Who asks about a task. */
export interface TaskCaller {
  token: AuthToken | undefined;
  /** `Sessions.fingerprint(token)`. */
  owner: string;
  scope: string;
  client: string;
}

export interface TaskEvent {
  server: string;
  event: 'created' | 'get' | 'result' | 'cancel' | 'update' | 'list' | 'failed' | 'refused';
  client: string;
  taskId: string;
  detail?: string;
}

const KEEP_MS = 24 * 60 * 60_000;
const LIST_LIMIT = 200;

/**
 * Tasks of upstreams (2025-11-25 core tasks: `tools/call` with `task`, `tasks/get`,
 * `tasks/result`, `tasks/list`, `tasks/cancel`, `notifications/tasks/status`) under ids of the
 * gateway's own, each bound to the token that created it: another token is told "not found", as
 * for an id that never existed. The records are in the shared store (Redis in a fleet), so a task
 * created through one instance is polled, fetched and cancelled through any other, also after a
 * restart. An upstream that is gone (its process died, it forgot the session) gives a failed task,
 * never a wait without end.
 */
export class TaskRegistry {
  private readonly inputs = new TaskInputs();

  constructor(
    private readonly options: {
      records: RecordStore;
      pipeline: CallPipeline;
      onEvent: (event: TaskEvent) => void;
    },
  ) {}

  /** Records a task an upstream created for `caller`; the result the client gets names our id. */
  async created(
    server: string,
    session: string | undefined,
    result: Record<string, unknown>,
    tool: string,
    caller: TaskCaller,
  ): Promise<Record<string, unknown>> {
    const task = result.task as Record<string, unknown>;
    if (typeof task.taskId !== 'string')
      throw new JsonRpcFault(INTERNAL_ERROR, `Upstream "${server}" created a task without an id`);
    const record: TaskRecord = {
      id: `tw-${randomBytes(18).toString('base64url')}`,
      server,
      upstreamId: task.taskId,
      session: session ?? this.options.pipeline.httpUpstream(server)?.sharedSession ?? null,
      owner: caller.owner,
      scope: caller.scope,
      tool,
      createdAt: typeof task.createdAt === 'string' ? task.createdAt : new Date().toISOString(),
      ttl: typeof task.ttl === 'number' ? task.ttl : null,
    };
    await this.save(record);
    const { records } = this.options;
    await records
      .putRecord(this.reverseKey(server, record.upstreamId), record.id, this.keepMs(record))
      .catch(() => undefined);
    const listKey = `tasks-of:${record.scope}`;
    const listed = JSON.parse(
      (await records.getRecord(listKey).catch(() => undefined)) ?? '[]',
    ) as string[];
    listed.push(record.id);
    await records
      .putRecord(listKey, JSON.stringify(listed.slice(-LIST_LIMIT)), KEEP_MS)
      .catch(() => undefined);
    this.options.onEvent({ server, event: 'created', client: caller.client, taskId: record.id });
    return { ...result, task: { ...task, taskId: record.id } };
  }

  /** `tasks/get`, `tasks/result`, `tasks/cancel` or `tasks/list` for `caller`. */
  async handle(
    method: string,
    params: Record<string, unknown>,
    caller: TaskCaller,
    request: (
      record: TaskRecord,
    ) => Pick<UpstreamRequestOptions, 'signal' | 'onRequest' | 'onNotification'>,
    modern = false,
  ): Promise<unknown> {
    if (modern) return this.handleModern(method, params, caller);
    if (method === 'tasks/list') return this.list(caller);
    const record = await this.find(params.taskId, caller);
    const http = this.options.pipeline.httpUpstream(record.server);
    const event = (name: TaskEvent['event'], detail?: string): void =>
      this.options.onEvent({
        server: record.server,
        event: name,
        client: caller.client,
        taskId: record.id,
        ...(detail !== undefined ? { detail } : {}),
      });
    event(method === 'tasks/get' ? 'get' : method === 'tasks/result' ? 'result' : 'cancel');
    if (record.failure) return this.failed(record, method);
    if (!http)
      return this.fail(
        record,
        method,
        `upstream "${record.server}" is not reachable over HTTP`,
        event,
      );
    const options: UpstreamRequestOptions = {
      ...request(record),
      // tasks/result waits for the task to end; the others answer at once.
      ...(method === 'tasks/result' ? {} : { timeoutMs: 30_000 }),
      ...(record.session ? { session: record.session } : {}),
    };
    try {
      const result = await http.request(method, { taskId: record.upstreamId }, options);
      return this.ours(result, record);
    } catch (error) {
      if (error instanceof JsonRpcFault && !isSessionGone(error)) {
        // The upstream no longer knows the task (it restarted): it failed.
        if (
          error.rpcCode === INVALID_PARAMS &&
          /not found/i.test(error.message) &&
          method !== 'tasks/cancel'
        )
          return this.fail(
            record,
            method,
            `upstream "${record.server}" lost the task: ${error.message}`,
            event,
          );
        throw error;
      }
      if (
        isSessionGone(error) ||
        (error instanceof UpstreamError && error.kind !== 'cancelled' && error.kind !== 'timeout')
      )
        return this.fail(
          record,
          method,
          `upstream "${record.server}" went away: ${(error as Error).message}`,
          event,
        );
      throw error;
    }
  }

  /**
   * The tasks extension of 2026-07-28 over a 2025-era upstream's core tasks: `tasks/get` answers
   * a `DetailedTask` (the result or error inlined once the task ended, the questions the task asks
   * as `inputRequests`), `tasks/update` answers them, `tasks/cancel` acknowledges.
   */
  private async handleModern(
    method: string,
    params: Record<string, unknown>,
    caller: TaskCaller,
  ): Promise<unknown> {
    if (method !== 'tasks/get' && method !== 'tasks/update' && method !== 'tasks/cancel')
      throw new JsonRpcFault(-32601, `Method not found: ${method} (not in the tasks extension)`);
    const record = await this.find(params.taskId, caller);
    if (method === 'tasks/update') {
      this.options.onEvent({
        server: record.server,
        event: 'update',
        client: caller.client,
        taskId: record.id,
      });
      this.inputs.answer(record.id, params.inputResponses);
      return {};
    }
    if (method === 'tasks/cancel') {
      await this.handle('tasks/cancel', { taskId: record.id }, caller, () => ({}));
      this.inputs.end(record.id);
      return {};
    }
    const task = (await this.handle(
      'tasks/get',
      { taskId: record.id },
      caller,
      () => ({}),
    )) as Record<string, unknown>;
    const detailed: Record<string, unknown> = {
      taskId: record.id,
      status: task.status,
      ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
      createdAt: task.createdAt ?? record.createdAt,
      lastUpdatedAt: task.lastUpdatedAt ?? task.createdAt ?? record.createdAt,
      ttlMs: typeof task.ttl === 'number' ? task.ttl : null,
      ...(typeof task.pollInterval === 'number' ? { pollIntervalMs: task.pollInterval } : {}),
    };
    if (task.status === 'completed' || task.status === 'failed') {
      this.inputs.end(record.id);
      try {
        detailed.result = await this.handle(
          'tasks/result',
          { taskId: record.id },
          caller,
          () => ({}),
        );
        if (isRecord(detailed.result) && isRecord(detailed.result._meta)) {
          const { [RELATED_TASK_META_KEY]: _related, ...meta } = detailed.result._meta;
          detailed.result = { ...detailed.result, _meta: meta };
          if (Object.keys(meta).length === 0)
            delete (detailed.result as Record<string, unknown>)._meta;
        }
        // A 2026-07-28 result says what it is; a 2025-era tool result with isError is a failed
        // task there, a completed one here.
        if (isRecord(detailed.result))
          detailed.result = { resultType: 'complete', ...detailed.result };
        detailed.status = 'completed';
      } catch (error) {
        detailed.status = 'failed';
        detailed.error =
          error instanceof JsonRpcFault
            ? error.toError()
            : { code: INTERNAL_ERROR, message: String(error) };
      }
    }
    if (task.status === 'input_required') {
      const http = this.options.pipeline.httpUpstream(record.server);
      // The upstream hands a task's questions out on tasks/result: a driver waits there for them.
      if (http)
        this.inputs.drive(record, (onRequest, signal) =>
          http.request(
            'tasks/result',
            { taskId: record.upstreamId },
            {
              onRequest,
              signal,
              ...(record.session ? { session: record.session } : {}),
            },
          ),
        );
      const inputRequests = await this.inputs.pending(record.id);
      if (Object.keys(inputRequests).length > 0) detailed.inputRequests = inputRequests;
      else detailed.status = 'working';
    }
    return detailed;
  }

  /** The record of a task id `caller` may use; "not found" for anything else, the same for all. */
  private async find(id: unknown, caller: TaskCaller): Promise<TaskRecord> {
    const notFound = (): never => {
      throw new JsonRpcFault(INVALID_PARAMS, 'Failed to retrieve task: Task not found');
    };
    if (typeof id !== 'string' || !id.startsWith('tw-') || id.length > 64) notFound();
    const raw = await this.options.records.getRecord(`task:${id as string}`);
    if (!raw) notFound();
    const record = JSON.parse(raw!) as TaskRecord;
    if (
      record.owner !== caller.owner ||
      this.options.pipeline.policy.check(record.tool, caller.token)
    ) {
      this.options.onEvent({
        server: record.server,
        event: 'refused',
        client: caller.client,
        taskId: record.id,
      });
      notFound();
    }
    return record;
  }

  private async list(caller: TaskCaller): Promise<unknown> {
    const ids = JSON.parse(
      (await this.options.records.getRecord(`tasks-of:${caller.scope}`).catch(() => undefined)) ??
        '[]',
    ) as string[];
    const tasks = await Promise.all(
      ids.map(async (id) => {
        try {
          return await this.handle('tasks/get', { taskId: id }, caller, () => ({}));
        } catch {
          return undefined;
        }
      }),
    );
    return { tasks: tasks.filter((task) => isRecord(task)) };
  }

  /** A task that failed because its upstream went away: recorded, so every instance says so. */
  private async fail(
    record: TaskRecord,
    method: string,
    message: string,
    event: (name: TaskEvent['event'], detail?: string) => void,
  ): Promise<unknown> {
    record.failure = { message, at: new Date().toISOString() };
    await this.save(record);
    event('failed', message);
    return this.failed(record, method);
  }

  private failed(record: TaskRecord, method: string): unknown {
    const failure = record.failure!;
    if (method === 'tasks/result')
      throw new JsonRpcFault(INTERNAL_ERROR, `Task failed: ${failure.message}`, {
        taskId: record.id,
        upstream: record.server,
      });
    if (method === 'tasks/cancel')
      throw new JsonRpcFault(
        INVALID_PARAMS,
        `Cannot cancel task: it already failed (${failure.message})`,
      );
    return {
      taskId: record.id,
      status: 'failed',
      statusMessage: failure.message,
      createdAt: record.createdAt,
      lastUpdatedAt: failure.at,
      ttl: record.ttl,
    };
  }

  /** An upstream's answer about a task, with our id in place of its own. */
  private ours(result: unknown, record: TaskRecord): unknown {
    if (!isRecord(result)) return result;
    const out: Record<string, unknown> = { ...result };
    if (out.taskId === record.upstreamId) out.taskId = record.id;
    if (isRecord(out._meta) && isRecord(out._meta[RELATED_TASK_META_KEY]))
      out._meta = { ...out._meta, [RELATED_TASK_META_KEY]: { taskId: record.id } };
    return out;
  }

  /**
   * A message an upstream sent about one of its tasks (a status notification, a request related
   * to the task): the task id the client knows, and whose it is; `undefined` when the gateway
   * does not know that task.
   */
  async outbound(
    server: string,
    message: UpstreamMessage,
  ): Promise<{ message: UpstreamMessage; record: TaskRecord } | undefined> {
    const params = message.params;
    if (!isRecord(params)) return undefined;
    const related = isRecord(params._meta) ? params._meta[RELATED_TASK_META_KEY] : undefined;
    const upstreamId =
      message.method === 'notifications/tasks/status' && typeof params.taskId === 'string'
        ? params.taskId
        : isRecord(related) && typeof related.taskId === 'string'
          ? related.taskId
          : undefined;
    if (upstreamId === undefined) return undefined;
    const id = await this.options.records
      .getRecord(this.reverseKey(server, upstreamId))
      .catch(() => undefined);
    const raw = id
      ? await this.options.records.getRecord(`task:${id}`).catch(() => undefined)
      : undefined;
    if (!raw) return undefined;
    const record = JSON.parse(raw) as TaskRecord;
    const out: Record<string, unknown> = { ...params };
    if (out.taskId === upstreamId) out.taskId = record.id;
    if (isRecord(related))
      out._meta = { ...(out._meta as object), [RELATED_TASK_META_KEY]: { taskId: record.id } };
    return { message: { ...message, params: out }, record };
  }

  /** A created task as the tasks extension (2026-07-28) answers it: `resultType: "task"`. */
  static modernCreated(result: Record<string, unknown>): Record<string, unknown> {
    const task = isRecord(result.task) ? result.task : {};
    return {
      resultType: 'task',
      taskId: task.taskId,
      status: task.status ?? 'working',
      ...(typeof task.statusMessage === 'string' ? { statusMessage: task.statusMessage } : {}),
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt ?? task.createdAt,
      ttlMs: typeof task.ttl === 'number' ? task.ttl : null,
      ...(typeof task.pollInterval === 'number' ? { pollIntervalMs: task.pollInterval } : {}),
    };
  }

  close(): void {
    this.inputs.close();
  }

  private save(record: TaskRecord): Promise<void> {
    return this.options.records.putRecord(
      `task:${record.id}`,
      JSON.stringify(record),
      this.keepMs(record),
    );
  }

  private keepMs(record: TaskRecord): number {
    return Math.min(KEEP_MS, Math.max(60_000, (record.ttl ?? KEEP_MS) + 60_000));
  }

  private reverseKey(server: string, upstreamId: string): string {
    return `task-upstream:${server}\u0000${upstreamId}`;
  }
}

/**
 * The questions 2025-era upstreams' tasks ask (on `tasks/result`), held for 2026-07-28 clients,
 * which poll them as `inputRequests` and answer with `tasks/update`. Per process: the instance
 * whose driver holds the upstream's `tasks/result` has them.
 */
class TaskInputs {
  private readonly drivers = new Map<
    string,
    {
      controller: AbortController;
      asked: Map<
        string,
        { method: string; params?: unknown; answer(a: ServerRequestAnswer): void }
      >;
      changed: () => void;
      next: number;
    }
  >();

  drive(
    record: TaskRecord,
    run: (
      onRequest: (message: UpstreamMessage) => Promise<ServerRequestAnswer>,
      signal: AbortSignal,
    ) => Promise<unknown>,
  ): void {
    if (this.drivers.has(record.id)) return;
    const driver = {
      controller: new AbortController(),
      asked: new Map<
        string,
        { method: string; params?: unknown; answer(a: ServerRequestAnswer): void }
      >(),
      changed: () => {},
      next: 0,
    };
    this.drivers.set(record.id, driver);
    void run(
      (message) =>
        new Promise<ServerRequestAnswer>((resolve) => {
          const key = `${String(message.method).replace(/\W/g, '_')}_${++driver.next}`;
          driver.asked.set(key, {
            method: message.method!,
            params: message.params,
            answer: resolve,
          });
          driver.changed();
        }),
      driver.controller.signal,
    )
      .catch(() => undefined)
      .finally(() => {
        if (this.drivers.get(record.id) === driver) this.drivers.delete(record.id);
        driver.changed();
      });
  }

  /** The task's open questions; waits a moment for the driver's first one. */
  async pending(id: string): Promise<Record<string, unknown>> {
    const driver = this.drivers.get(id);
    if (!driver) return {};
    if (driver.asked.size === 0)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        driver.changed = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    const out: Record<string, unknown> = {};
    for (const [key, asked] of driver.asked)
      out[key] = {
        method: asked.method,
        ...(asked.params !== undefined ? { params: asked.params } : {}),
      };
    return out;
  }

  answer(id: string, responses: unknown): void {
    const driver = this.drivers.get(id);
    if (!driver || !isRecord(responses)) return;
    for (const [key, value] of Object.entries(responses)) {
      const asked = driver.asked.get(key);
      if (!asked || !isRecord(value)) continue;
      driver.asked.delete(key);
      asked.answer({ result: value });
    }
  }

  end(id: string): void {
    this.drivers.get(id)?.controller.abort();
    this.drivers.delete(id);
  }

  close(): void {
    for (const id of [...this.drivers.keys()]) this.end(id);
  }
}
