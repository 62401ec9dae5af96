// Child-process entry of the isolated-vm executor. It runs in its own Node process, started with
// --no-node-snapshot (isolated-vm requires it on Node >= 20), so a V8 isolate crash or a
// catastrophic error takes down this process, never the host. One fresh isolate per run.
// Erasable TypeScript only: in development Node loads this file directly (type stripping).
import type IsolatedVMModule from 'isolated-vm';
import { harnessSource } from './guest-harness.ts';
import type { GuestError } from './guest-harness.ts';
import { LogBudget } from './log-budget.ts';
import type { HostMessage, OutboxCall, RunnerMessage, RunnerOutcome } from './protocol.ts';

type IsolatedVM = typeof IsolatedVMModule;
type Isolate = InstanceType<IsolatedVM['Isolate']>;
type Reference = InstanceType<IsolatedVM['Reference']>;

const send = (
  message: RunnerMessage | { type: 'unavailable'; message: string },
  then?: () => void,
): void => {
  process.send?.(message, undefined, undefined, then);
};

let ivm: IsolatedVM;
try {
  ivm = ((await import('isolated-vm')) as { default: IsolatedVM }).default;
  // Loading is not enough: a build for another Node ABI fails only when an isolate is made.
  new ivm.Isolate({ memoryLimit: 8 }).dispose();
} catch (error) {
  send({ type: 'unavailable', message: error instanceof Error ? error.message : String(error) });
  process.exit(0);
}

interface ActiveRun {
  runId: number;
  isolate: Isolate;
  deliver: Reference | undefined;
  done: boolean;
  timer: NodeJS.Timeout | undefined;
  /** Polls the isolate (disposed at its heap limit) and this process's resident memory. */
  watch: NodeJS.Timeout | undefined;
  /** The script's outcome, reported by the harness; the run finishes the moment it arrives. */
  outcome: string | undefined;
  /**
   * Calls made since the isolate last went idle (every call into it runs its microtasks to the
   * end before it returns). They reach the host only if the script had not finished by then.
   */
  outbox: OutboxCall[];
}

let active: ActiveRun | undefined;
const MiB = 1024 * 1024;

process.on('message', (message: HostMessage) => {
  if (message.type === 'run') void startRun(message);
  else if (message.type === 'tool-result') {
    const run = active;
    if (run?.runId !== message.runId || run.done || !run.deliver) return;
    run.deliver
      .apply(undefined, [message.callId, message.envelope], { arguments: { copy: true } })
      .then(
        () => idle(run),
        (error: unknown) => afterCall(run, error),
      );
  } else if (message.type === 'stop' && active?.runId === message.runId) {
    finish(active, {
      type: 'engine',
      reason: 'interrupted',
      error: { name: 'Error', message: 'interrupted' },
    });
  }
});
process.on('disconnect', () => process.exit(0));
// A disposed isolate's pages often stay with the process's allocator; a runner that ends a run
// this much above its resident size at start asks to be replaced, so memory goes back to the host.
const startResidentBytes = process.memoryUsage.rss();
const recycleAboveBytes = 24 * MiB;
/**
 * The isolate's heap limit does not bound what V8's native string and regexp code allocates
 * outside it (a global `replace` on a 30 MB string reached +964 MB): this process's resident
 * memory is watched instead, and past the run's memoryBytes plus this much (V8's young
 * generation, allocator slack, the watch's own latency) the run ends as `memory` and the process
 * is killed, since an isolate busy in native code cannot be stopped from here.
 */
const residentAllowanceBytes = 32 * MiB;
const watchIntervalMs = 2;
send({ type: 'ready' });

async function startRun(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const { runId, limits } = message;
  const isolate = new ivm.Isolate({
    memoryLimit: Math.max(8, Math.ceil(limits.memoryBytes / MiB)),
    // isolated-vm's documentation: after a catastrophic error the process must not continue.
    onCatastrophicError: () => process.abort(),
  });
  const run: ActiveRun = {
    runId,
    isolate,
    deliver: undefined,
    done: false,
    timer: undefined,
    watch: undefined,
    outcome: undefined,
    outbox: [],
  };
  active = run;
  const residentLimit = process.memoryUsage.rss() + limits.memoryBytes + residentAllowanceBytes;
  let started = false;
  run.watch = setInterval(() => {
    if (run.done) return;
    const resident = process.memoryUsage.rss();
    if (resident > residentLimit) return outOfMemory(run, resident, residentLimit);
    if (started && isolate.isDisposed) {
      finish(run, {
        type: 'engine',
        reason: 'memory',
        error: { name: 'RangeError', message: 'memory limit' },
      });
    }
  }, watchIntervalMs);
  run.timer = setTimeout(
    () =>
      finish(run, {
        type: 'engine',
        reason: 'interrupted',
        error: { name: 'Error', message: 'interrupted' },
      }),
    limits.timeoutMs,
  );
  const logs = new LogBudget(limits.maxLogBytes, limits.maxLogLines);
  try {
    const context = await isolate.createContext();
    // Tool calls do not use isolated-vm's promise transfer: its guest-side promise settles
    // through the script-visible Promise.prototype.then, which a script can replace. The guest
    // makes its own promise, announces the call synchronously and the host delivers the result.
    const call = new ivm.Reference(
      (callId: unknown, name: unknown, args: unknown, argsLength: unknown) => {
        if (
          typeof callId !== 'number' ||
          typeof name !== 'string' ||
          (args !== undefined && typeof args !== 'string') ||
          (argsLength !== undefined && typeof argsLength !== 'number')
        ) {
          return;
        }
        run.outbox.push({
          callId,
          name,
          args,
          ...(argsLength !== undefined ? { argsLength } : {}),
        });
      },
    );
    const log = new ivm.Reference((level: unknown, text: unknown) => {
      if (typeof text !== 'string' || run.done || run.outcome !== undefined) return;
      const wasTruncated = logs.truncated;
      logs.admit(text);
      if (!wasTruncated) send({ type: 'log', runId, level: String(level) as 'log', message: text });
    });
    // Called synchronously from the guest while its thread waits for the answer: the run finishes
    // here and the isolate is disposed before control goes back to it, so no job still queued
    // (the script's or one it queued before returning) runs after the outcome.
    const done = new ivm.Reference((outcome: unknown) => {
      if (typeof outcome !== 'string' || run.outcome !== undefined) return;
      run.outcome = outcome;
      finish(run, { type: 'guest', outcome });
    });
    // Null-prototype option objects: the script cannot add options through Object.prototype.
    const bridge = (await context.evalClosure(
      `'use strict'; // strict frames: Error.prepareStackTrace cannot hand their functions to the script
       const callRef = $0, logRef = $1, doneRef = $2;
       const PromiseCtor = Promise;
       const apply = Reflect.apply;
       const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
       const resolvers = new Map();
       const options = { __proto__: null, arguments: { __proto__: null, copy: true } };
       let nextId = 0;
       const call = (name, args, argsLength) => new PromiseCtor((resolve) => {
         const id = ++nextId;
         apply(mapSet, resolvers, [id, resolve]);
         callRef.applySync(undefined, [id, name, args, argsLength], options);
       });
       const deliver = (id, envelope) => {
         const resolve = apply(mapGet, resolvers, [id]);
         if (resolve === undefined) return;
         apply(mapDelete, resolvers, [id]);
         resolve(envelope);
       };
       const log = (level, text) => { logRef.applySync(undefined, [level, text], options); };
       const done = (outcome) => { doneRef.applySync(undefined, [outcome], options); };
       const harness = (${harnessSource})(call, log, done, ${JSON.stringify(JSON.stringify(message.config))});
       const start = (main) => { harness.start(main); };
       return { __proto__: null, start, deliver };`,
      // References are transferable as they are; they stay in this closure, out of the script's reach.
      [call, log, done],
      { result: { reference: true } },
    )) as unknown as {
      get(key: 'start' | 'deliver', options: { reference: true }): Promise<Reference>;
    };
    const start = await bridge.get('start', { reference: true });
    run.deliver = await bridge.get('deliver', { reference: true });
    let script: Awaited<ReturnType<Isolate['compileScript']>>;
    try {
      script = await isolate.compileScript(message.code, { filename: 'script.js' });
    } catch (error) {
      return finish(run, { type: 'engine', reason: 'syntax', error: describe(error) });
    }
    const main = (await script.run(context, {
      reference: true,
      timeout: limits.timeoutMs,
    })) as Reference;
    // The result is not awaited through isolated-vm's promise transfer (see above); the harness
    // reports through done(), and an isolate disposed for its memory limit is noticed by polling.
    try {
      await start.apply(undefined, [main.derefInto()], { timeout: limits.timeoutMs });
    } catch (error) {
      if (afterCall(run, error)) return;
    }
    if (run.done) return;
    idle(run);
    // From here an isolate disposed by isolated-vm (its heap limit) is noticed by the watch.
    started = true;
  } catch (error) {
    if (run.done) return;
    finish(run, classify(error, isolate));
  }
}

/**
 * A call into the isolate threw. isolated-vm throws the first promise rejection the script left
 * unhandled out of whatever call was running its jobs; the jobs themselves all ran, so the
 * script goes on, as on an engine with no host to tell (QuickJS). Anything else ends the run:
 * a disposed isolate (its memory limit) or the deadline. True if the run is over.
 */
function afterCall(run: ActiveRun, error: unknown): boolean {
  if (run.done) return true;
  const timedOut = /^Script execution timed out/.test(describe(error).message);
  if (run.isolate.isDisposed || timedOut) {
    finish(run, classify(error, run.isolate));
    return true;
  }
  idle(run);
  return false;
}

/** The isolate ran out of jobs: send the calls it made, unless the script has finished. */
function idle(run: ActiveRun): void {
  if (run.done || run.outcome !== undefined) return;
  for (const call of run.outbox.splice(0)) send({ type: 'call', runId: run.runId, ...call });
}

function describe(error: unknown): GuestError {
  if (error instanceof Error) {
    return {
      name: error.name,
      message: error.message,
      ...(error.stack ? { stack: error.stack } : {}),
    };
  }
  return { name: 'Error', message: String(error), thrown: 'primitive' };
}

function classify(error: unknown, isolate: Isolate): RunnerOutcome {
  const described = describe(error);
  if (/memory limit/i.test(described.message))
    return { type: 'engine', reason: 'memory', error: described };
  if (/timed out/i.test(described.message) || isolate.isDisposed) {
    return { type: 'engine', reason: 'interrupted', error: described };
  }
  if (/Maximum call stack/i.test(described.message))
    return { type: 'engine', reason: 'stack-overflow', error: described };
  return { type: 'engine', reason: 'internal', error: described };
}

/**
 * Resident memory went past the run's bound, most likely inside native code the isolate cannot
 * be interrupted in: report `memory`, then end this process (the host starts a fresh runner). The
 * line on stderr says the same in case the report does not arrive first.
 */
function outOfMemory(run: ActiveRun, resident: number, limit: number): void {
  process.stderr.write(
    `isolated-vm runner: out of memory (resident ${Math.round(resident / MiB)} MiB, bound ${Math.round(limit / MiB)} MiB)\n`,
  );
  finish(
    run,
    { type: 'engine', reason: 'memory', error: { name: 'RangeError', message: 'resident memory' } },
    () => process.kill(process.pid, 'SIGKILL'),
  );
}

function finish(run: ActiveRun, result: RunnerOutcome, exit?: () => void): void {
  if (run.done) return;
  run.done = true;
  clearTimeout(run.timer);
  clearInterval(run.watch);
  // Disposing waits for native code still running in the isolate: a process about to exit skips it.
  if (!exit && !run.isolate.isDisposed) run.isolate.dispose();
  if (active === run) active = undefined;
  const recycle =
    exit !== undefined || process.memoryUsage.rss() > startResidentBytes + recycleAboveBytes;
  const refusedCalls = run.outbox.splice(0).map(({ name, args }) => ({ name, args }));
  send(
    {
      type: 'done',
      runId: run.runId,
      result,
      recycle,
      ...(refusedCalls.length > 0 ? { refusedCalls } : {}),
    },
    exit,
  );
}
