// Worker-thread entry of the QuickJS executor. One QuickJS WebAssembly module per worker, one fresh
// runtime and context per run. Erasable TypeScript only: in development Node loads this file
// directly (type stripping); the published build ships it compiled as dist/quickjs-worker.js.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import type {
  CustomizeVariantOptions,
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { harnessSource } from './guest-harness.ts';
import type { GuestError } from './guest-harness.ts';
import { LogBudget } from './log-budget.ts';
import { currentThreadId } from './thread-priority.ts';
import type {
  EngineStop,
  HostMessage,
  OutboxCall,
  RunnerMessage,
  RunnerOutcome,
} from './protocol.ts';

if (!parentPort) throw new Error('quickjs-worker must run in a worker thread');
// Emscripten prints engine aborts to stderr, and the run's result already says what happened. The
// worker's stdio is not piped to the host (piped worker streams keep the host process alive even
// when the worker is unref'd), so it is silenced here instead of leaking into the host's output.
process.stdout.write = (() => true) as typeof process.stdout.write;
process.stderr.write = (() => true) as typeof process.stderr.write;
const port = parentPort;
const post = (message: RunnerMessage): void => port.postMessage(message);

// Why the engine gets a WebAssembly memory of our own: this QuickJS build cannot measure the size
// of its allocations (malloc_usable_size is 0 under Emscripten), so runtime.setMemoryLimit()
// counts a few bytes per allocation and a script could grow the module's memory to its 2 GiB
// ceiling. A memory whose `maximum` is the engine's start-up size plus `memoryBytes` makes every
// allocation past the limit fail inside the engine (QuickJS reports "out of memory"), whatever
// the script allocates. WebAssembly memory never shrinks, so a worker whose memory grew during a
// run asks to be recycled (see finish()).
const pageBytes = 64 * 1024;
// The repository's TypeScript libs (ES2023 + Node types) do not declare the WebAssembly API.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: {
    Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
    compile(bytes: Uint8Array): Promise<object>;
  };
};
/** Emscripten's INITIAL_MEMORY for this build: static data, the C stack and the first heap pages. */
const engineBaseBytes = 16 * 1024 * 1024;
const wasmModule = await wasm.compile(
  await readFile(fileURLToPath(import.meta.resolve('@jitl/quickjs-wasmfile-release-sync/wasm'))),
);

interface Engine {
  memoryBytes: number;
  memory: WasmMemory;
  module: QuickJSWASMModule;
  /** Set when the engine asked for more memory than the maximum (cleared at each run's start). */
  exhausted: boolean;
}

let engine: Engine | undefined;

async function engineFor(memoryBytes: number): Promise<Engine> {
  if (engine?.memoryBytes === memoryBytes) return engine;
  const initial = engineBaseBytes / pageBytes;
  const memory = new wasm.Memory({
    initial,
    maximum: initial + Math.ceil(memoryBytes / pageBytes),
  });
  const grow = memory.grow.bind(memory);
  // Emscripten's heap resize calls grow() on this object; a refusal is how we learn that the
  // script hit the limit even when QuickJS then throws null (it cannot allocate the error).
  memory.grow = (delta: number): number => {
    try {
      return grow(delta);
    } catch (error) {
      current.exhausted = true;
      throw error;
    }
  };
  const module = await newQuickJSWASMModuleFromVariant(
    newVariant(variant, { wasmModule, wasmMemory: memory } as CustomizeVariantOptions),
  );
  const current: Engine = { memoryBytes, memory, module, exhausted: false };
  engine = current;
  return current;
}

interface ActiveRun {
  runId: number;
  runtime: QuickJSRuntime;
  vm: QuickJSContext;
  pending: Map<number, QuickJSDeferredPromise>;
  handles: QuickJSHandle[];
  done: boolean;
  /** Set by the harness's done() callback; acted on once the engine has returned. */
  outcome: string | undefined;
  /** The script's own promise, set once started. */
  running: QuickJSHandle | undefined;
  /**
   * Calls made since the engine last went idle. They reach the host only if the script is still
   * running when the engine goes idle; calls made in the turn in which it finished are refused.
   */
  outbox: OutboxCall[];
}

let active: ActiveRun | undefined;

port.on('message', (message: HostMessage) => {
  if (message.type === 'run') {
    startRun(message).catch((error: unknown) => {
      post({ type: 'done', runId: message.runId, result: hostFailure(error), recycle: true });
    });
  } else if (message.type === 'tool-result')
    deliver(message.runId, message.callId, message.envelope);
  else if (message.type === 'stop' && active?.runId === message.runId) {
    finish(active, {
      type: 'engine',
      reason: 'interrupted',
      error: { name: 'InternalError', message: 'interrupted' },
    });
  }
});
// The engine for the executor's default limit is ready before the first run; runs with another
// memory limit get theirs when they start.
await engineFor((workerData as { memoryBytes: number }).memoryBytes);
const threadId = currentThreadId();
post({ type: 'ready', ...(threadId !== undefined ? { threadId } : {}) });

async function startRun(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const { runId, limits } = message;
  const current = await engineFor(limits.memoryBytes);
  current.exhausted = false;
  const runtime = current.module.newRuntime();
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
    running: undefined,
    outbox: [],
  };
  active = run;
  const logs = new LogBudget(limits.maxLogBytes, limits.maxLogLines);
  let nextCallId = 0;

  // Arguments the guest did not pass arrive as undefined, not as handles.
  const call = vm.newFunction('call', (nameHandle, argsHandle?, lengthHandle?) => {
    const name = vm.getString(nameHandle);
    const args =
      argsHandle && vm.typeof(argsHandle) === 'string' ? vm.getString(argsHandle) : undefined;
    const argsLength =
      lengthHandle && vm.typeof(lengthHandle) === 'number' ? vm.getNumber(lengthHandle) : undefined;
    const deferred = vm.newPromise();
    const callId = ++nextCallId;
    run.pending.set(callId, deferred);
    run.outbox.push({ callId, name, args, ...(argsLength !== undefined ? { argsLength } : {}) });
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
  const harness = vm.callFunction(factory.value, vm.undefined, call, log, done, configJson);
  if (harness.error) return finish(run, engineFailure(run, harness.error, 'internal'));
  run.handles.push(harness.value);
  const start = vm.getProp(harness.value, 'start');
  run.handles.push(start);
  const main = vm.evalCode(message.code, 'script.js');
  if (main.error) return finish(run, engineFailure(run, main.error, 'syntax'));
  run.handles.push(main.value);
  const started = vm.callFunction(start, vm.undefined, main.value);
  if (started.error) return finish(run, engineFailure(run, started.error, 'internal'));
  run.running = started.value;
  run.handles.push(started.value);
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

/**
 * Runs the guest's promise jobs one at a time until none are left, the engine stops, or the
 * harness reports the script's end (from inside the job in which it ended): from then on no job
 * of the script runs (later jobs are dropped with the runtime) and calls made in that last turn
 * are refused.
 */
function pump(run: ActiveRun): void {
  while (!run.done) {
    if (run.outcome !== undefined) return finish(run, { type: 'guest', outcome: run.outcome });
    let result: ReturnType<QuickJSRuntime['executePendingJobs']>;
    try {
      result = run.runtime.executePendingJobs(1);
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
    if (result.value === 0) break;
  }
  if (run.done || failedToReport(run)) return;
  for (const call of run.outbox.splice(0)) post({ type: 'call', runId: run.runId, ...call });
}

/**
 * Checked when the engine goes idle without an outcome: the script's promise rejects only when
 * the harness could not report (no memory left to build the outcome), and then that rejection
 * ends the run. True if it did.
 */
function failedToReport(run: ActiveRun): boolean {
  const { vm, running } = run;
  if (!running || vm.typeof(running) !== 'object') return false;
  const state = vm.getPromiseState(running);
  if (state.type !== 'rejected') {
    if (state.type === 'fulfilled' && state.notAPromise !== true) state.value.dispose();
    return false;
  }
  finish(run, engineFailure(run, state.error, 'internal'), true);
  return true;
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

function finish(run: ActiveRun, outcome: RunnerOutcome, abandon = false): void {
  if (run.done) return;
  run.done = true;
  // A run that failed after an allocation was refused failed for memory, whatever the engine made
  // of it (QuickJS throws null or aborts a job when it cannot even allocate the error).
  const succeeded = outcome.type === 'guest' && outcome.outcome.startsWith('1');
  const result: RunnerOutcome =
    engine?.exhausted === true && !succeeded
      ? {
          type: 'engine',
          reason: 'memory',
          error: { name: 'InternalError', message: 'out of memory' },
        }
      : outcome;
  let recycle =
    abandon ||
    // The memory grew past its start-up size: give it back by replacing the worker.
    (engine !== undefined && engine.memory.buffer.byteLength > engineBaseBytes) ||
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
  const refusedCalls = run.outbox.splice(0).map(({ name, args }) => ({ name, args }));
  post({
    type: 'done',
    runId: run.runId,
    result,
    recycle,
    ...(refusedCalls.length > 0 ? { refusedCalls } : {}),
  });
}
