import { randomBytes } from 'node:crypto';
import type { AuthToken } from '@toolwire/config';
import type { CallPipeline } from '../call/call-pipeline.js';
import { isSessionGone } from '../call/execute-upstream.js';
import {
  UpstreamError,
  type HttpUpstream,
  type UpstreamMessage,
  type UpstreamRequestOptions,
} from '../http-upstream.js';
import { INTERNAL_ERROR, INVALID_PARAMS, isRecord, JsonRpcFault } from '../json-rpc.js';
import type { RecordStore } from '../session-store.js';

export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

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
  event: 'created' | 'get' | 'result' | 'cancel' | 'list' | 'failed' | 'refused';
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
  ): Promise<unknown> {
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
