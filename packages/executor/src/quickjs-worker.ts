// Worker-thread entry of the QuickJS executor. One QuickJS WebAssembly module per worker, one fresh
// runtime and context per run. Erasable TypeScript only: in development Node loads this file
// directly (type stripping); the published build ships it compiled as dist/quickjs-worker.js.
import { parentPort } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from 'quickjs-emscripten-core';
import { harnessSource } from './guest-harness.ts';
import type { GuestError } from './guest-harness.ts';
import { LogBudget } from './log-budget.ts';
import type { EngineStop, HostMessage, RunnerMessage, RunnerOutcome } from './protocol.ts';

if (!parentPort) throw new Error('quickjs-worker must run in a worker thread');
// Emscripten prints engine aborts to stderr, and the run's result already says what happened. The
// worker's stdio is not piped to the host (piped worker streams keep the host process alive even
// when the worker is unref'd), so it is silenced here instead of leaking into the host's output.
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = (() => true) as typeof process.stderr.write;
const port = parentPort;
const post = (message: RunnerMessage): void => port.postMessage(message);

const QuickJS = await newQuickJSWASMModuleFromVariant(variant);

interface ActiveRun {
  runId: number;
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  pending: Map<number, QuickJSDeferredPromise>;
  handles: QuickJSHandle[];
  done: boolean;
  /** Set by the harness's done() callback; acted on once the engine has returned. */
  outcome: string | undefined;
}

let active: ActiveRun | undefined;

port.on('message', (message: HostMessage) => {
  if (message.type === 'run') startRun(message);
  else if (message.type === 'tool-result') deliver(message.runId, message.callId, message.envelope);
  else if (message.type === 'stop' && active?.runId === message.runId) {
    finish(active, {
      type: 'engine',
      reason: 'interrupted',
      error: { name: 'InternalError', message: 'interrupted' },
    });
  }
});
post({ type: 'ready' });

function startRun(message: Extract<HostMessage, { type: 'run' }>): void {
  const { runId, limits } = message;
  const runtime = QuickJS.newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(limits.stackBytes);
  const deadline = Date.now() + limits.timeoutMs;
  const stopFlag = message.stopFlag ? new Int32Array(message.stopFlag) : undefined;
  runtime.setInterruptHandler(
    () => Date.now() > deadline || (stopFlag !== undefined && Atomics.load(stopFlag, 0) !== 0),
  );
  const vm = runtime.newContext();
  const run: ActiveRun = {
    runId,
    runtime,
    vm,
    pending: new Map(),
    handles: [],
    done: false,
    outcome: undefined,
  };
  active = run;
  const logs = new LogBudget(limits.maxLogBytes, limits.maxLogLines);
  let nextCallId = 0;

  const call = vm.newFunction('call', (nameHandle, argsHandle) => {
    const name = vm.getString(nameHandle);
    const args = vm.typeof(argsHandle) === 'string' ? vm.getString(argsHandle) : undefined;
    const deferred = vm.newPromise();
    const callId = ++nextCallId;
    run.pending.set(callId, deferred);
    post({ type: 'call', runId, callId, name, args });
    return deferred.handle;
  });
  const log = vm.newFunction('log', (levelHandle, textHandle) => {
    const text = vm.getString(textHandle);
    // The first entry over budget still goes to the host, so it can mark the logs truncated.
    const wasTruncated = logs.truncated;
    logs.admit(text);
    if (wasTruncated) return;
    post({ type: 'log', runId, level: vm.getString(levelHandle) as 'log', message: text });
  });
  const done = vm.newFunction('done', (outcomeHandle) => {
    if (run.outcome === undefined) run.outcome = vm.getString(outcomeHandle);
  });
  const configJson = vm.newString(JSON.stringify(message.config));
  run.handles.push(call, log, done, configJson);

  const factory = vm.evalCode(harnessSource, 'harness.js');
  if (factory.error) return finish(run, engineFailure(run, factory.error, 'internal'));
  run.handles.push(factory.value);
  const start = vm.callFunction(factory.value, vm.undefined, call, log, done, configJson);
  if (start.error) return finish(run, engineFailure(run, start.error, 'internal'));
  run.handles.push(start.value);
  const main = vm.evalCode(message.code, 'script.js');
  if (main.error) return finish(run, engineFailure(run, main.error, 'syntax'));
  run.handles.push(main.value);
  const started = vm.callFunction(start.value, vm.undefined, main.value);
  if (started.error) return finish(run, engineFailure(run, started.error, 'internal'));
  started.value.dispose();
  pump(run);
}

function deliver(runId: number, callId: number, envelope: string): void {
  const run = active;
  if (!run || run.runId !== runId || run.done) return;
  const deferred = run.pending.get(callId);
  if (!deferred) return;
  run.pending.delete(callId);
  try {
    const value = run.vm.newString(envelope);
    deferred.resolve(value);
    value.dispose();
  } catch (error) {
    return finish(run, hostFailure(error));
  } finally {
    deferred.dispose();
  }
  pump(run);
}

/** Runs queued promise jobs (the guest's continuations) until none are left or the engine stops. */
function pump(run: ActiveRun): void {
  if (run.done) return;
  let result: ReturnType<QuickJSRuntime['executePendingJobs']>;
  try {
    result = run.runtime.executePendingJobs();
  } catch (error) {
    // The WebAssembly module itself aborted (an engine assertion, usually under memory
    // pressure): this worker's QuickJS is unusable from here on.
    return finish(run, wasmAbort(error), true);
  }
  if (result.error) {
    const context = result.error.context;
    const failure = engineFailure(run, result.error, 'internal', context);
    // A job that died mid-way (interrupt, out of memory) can leave objects QuickJS cannot free
    // cleanly (JS_FreeRuntime aborts on its leak assertion): retire this worker instead.
    return finish(run, failure, true);
  }
  if (run.outcome !== undefined) finish(run, { type: 'guest', outcome: run.outcome });
}

function engineFailure(
  run: ActiveRun,
  handle: QuickJSHandle,
  fallback: EngineStop,
  vm: QuickJSContext = run.vm,
): RunnerOutcome {
  let error: GuestError;
  try {
    const dumped: unknown = vm.dump(handle);
    if (dumped === null || dumped === undefined) {
      // QuickJS throws null when it cannot even allocate the error object.
      error = { name: 'InternalError', message: 'out of memory', thrown: 'null' };
    } else if (typeof dumped === 'object') {
      const record = dumped as Record<string, unknown>;
      error = {
        name: String(record['name'] ?? 'Error'),
        message: String(record['message'] ?? ''),
        ...(typeof record['stack'] === 'string' ? { stack: record['stack'] } : {}),
      };
    } else {
      error = { name: 'Error', message: String(dumped), thrown: 'primitive' };
    }
  } catch {
    error = { name: 'InternalError', message: 'out of memory', thrown: 'null' };
  } finally {
    handle.dispose();
  }
  const reason: EngineStop =
    error.name === 'InternalError' && error.message === 'interrupted'
      ? 'interrupted'
      : /out of memory|string too long/i.test(error.message)
        ? 'memory'
        : /stack overflow/i.test(error.message)
          ? 'stack-overflow'
          : error.name === 'SyntaxError'
            ? 'syntax'
            : fallback;
  return { type: 'engine', reason, error };
}

function wasmAbort(error: unknown): RunnerOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return { type: 'engine', reason: 'internal', error: { name: 'InternalError', message } };
}

function hostFailure(error: unknown): RunnerOutcome {
  return {
    type: 'engine',
    reason: 'internal',
    error: {
      name: 'InternalError',
      message: error instanceof Error ? error.message : String(error),
    },
  };
}

function finish(run: ActiveRun, result: RunnerOutcome, abandon = false): void {
  if (run.done) return;
  run.done = true;
  let recycle =
    abandon ||
    (result.type === 'engine' && (result.reason === 'memory' || result.reason === 'internal'));
  try {
    if (abandon) throw new Error('runtime abandoned with its worker');
    for (const deferred of run.pending.values()) deferred.dispose();
    run.pending.clear();
    for (const handle of run.handles) if (handle.alive) handle.dispose();
    run.vm.dispose();
    run.runtime.setMemoryLimit(-1);
    run.runtime.dispose();
  } catch {
    // A runtime that cannot be torn down cleanly may have leaked into the module's memory.
    recycle = true;
  }
  if (active === run) active = undefined;
  post({ type: 'done', runId: run.runId, result, recycle });
}
