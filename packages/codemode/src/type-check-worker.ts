// Worker-thread entry of IsolatedTypeChecker: the TypeScript compiler runs here, off the host's
// event loop, under the worker's heap limit. Erasable TypeScript only: in development Node loads
// this file directly (type stripping); the published build ships it as dist/type-check-worker.js.
import { enableCompileCache } from 'node:module';
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { TypeCheckerOptions } from './code-diagnostic.ts';
import type { TypeCheckReply, TypeCheckRequest } from './checker-worker.ts';
import type * as TypeCheckerModule from './type-checker.ts';

if (!parentPort) throw new Error('type-check-worker must run in a worker thread');
const port = parentPort;

// `typescript` is 9 MB of JavaScript: Node's compile cache (in the system temp directory, or
// NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off) spares compiling it again in
// every process that checks.
enableCompileCache?.();
let checkerModule: typeof TypeCheckerModule;
try {
  // `typescript` is an optional peer dependency: without it there is nothing to check with.
  // Beside this file: the source in development, the build's ES module in the package (a
  // specifier the bundler leaves alone, so the compiler is never bundled into the worker).
  const fromSource = import.meta.url.endsWith('.ts');
  checkerModule = (await import(
    fromSource ? './type-checker.ts' : './type-checker.js'
  )) as typeof TypeCheckerModule;
} catch (error) {
  port.postMessage({
    type: 'unavailable',
    message: error instanceof Error ? error.message : String(error),
  } satisfies TypeCheckReply);
  process.exit(0);
}
const checker = new checkerModule.CodeTypeChecker(workerData as TypeCheckerOptions);
let declarations = '';
let prelude = '';

port.on('message', (request: TypeCheckRequest) => {
  if (request.declarations !== undefined) declarations = request.declarations;
  if (request.prelude !== undefined) prelude = request.prelude;
  let reply: TypeCheckReply;
  try {
    reply = {
      type: 'checked',
      id: request.id,
      diagnostics: checker.check(request.body, declarations, prelude),
    };
  } catch (error) {
    reply = {
      type: 'failed',
      id: request.id,
      message: error instanceof Error ? error.message : String(error),
    };
  }
  port.postMessage(reply);
});
// Parsing TypeScript's lib files is most of a cold check: done before the first request is
// accepted, so the per-check time limit measures the check alone.
checker.check('return;', '', '');
// This thread as the kernel knows it (Linux), so the host can lower its priority during a long
// check (see @toolwire/executor's thread-priority); this file loads no package but TypeScript.
let threadId: number | undefined;
try {
  threadId = Number(readlinkSync('/proc/thread-self').split('/').pop()) || undefined;
} catch {
  threadId = undefined;
}
port.postMessage({
  type: 'ready',
  ...(threadId !== undefined ? { threadId } : {}),
} satisfies TypeCheckReply);
