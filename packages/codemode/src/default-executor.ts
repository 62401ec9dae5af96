import { createQuickJSExecutor } from '@toolwire/executor';
import type { Executor, FairShareOptions } from '@toolwire/executor';
import { sharedTypeChecker } from './isolated-type-checker.js';

let sharedExecutor: Executor | undefined;
/** Code modes using the shared executor and not yet closed. */
let sharedUsers = 0;
let runShare: FairShareOptions | undefined;
/** Whether a warm-up with `keep` holds the shared executor open (one use, for the process). */
let keptOpen = false;

/** The QuickJS executor code modes share when given none, made on first use. */
export function defaultExecutor(): Executor {
  sharedExecutor ??= createQuickJSExecutor(runShare ? { fairShare: runShare } : {});
  return sharedExecutor;
}

export function useDefaultExecutor(): void {
  sharedUsers++;
}

export async function releaseDefaultExecutor(): Promise<void> {
  sharedUsers = Math.max(0, sharedUsers - 1);
  if (sharedUsers === 0) await closeDefaultExecutor();
}

/**
 * Keeps the shared sandbox open until the returned function is called, even while no code mode
 * uses it. A server that runs one-shot scripts (`runCode`) or makes a code mode per request holds
 * it: otherwise the sandbox closes after each script when no other holds it, and the next one
 * waits for a fresh engine to start (hundreds of milliseconds on a busy machine). Idle, it keeps
 * no process alive.
 */
export function holdSharedSandbox(): () => Promise<void> {
  useDefaultExecutor();
  let held = true;
  return async () => {
    if (!held) return;
    held = false;
    await releaseDefaultExecutor();
  };
}

/**
 * Closes the shared default executor now, whoever still uses it (it is made again if code mode
 * needs it later). Normally not needed: it closes when the last code mode using it is closed.
 */
export async function closeDefaultExecutor(): Promise<void> {
  if (keptOpen) {
    keptOpen = false;
    sharedUsers = Math.max(0, sharedUsers - 1);
  }
  const executor = sharedExecutor;
  sharedExecutor = undefined;
  await executor?.close();
}

/**
 * How owners (`CodeModeOptions.owner`, a gateway's token client names) share the process-wide
 * sandbox: the default executor's runners (`runs`) and the shared type checker's workers
 * (`typeChecks`). Applies at once, also to runs and checks already waiting.
 */
export function configureSharedSandbox(share: {
  runs?: FairShareOptions;
  typeChecks?: FairShareOptions;
}): void {
  if (share.runs) {
    runShare = share.runs;
    sharedExecutor?.setFairShare(share.runs);
  }
  if (share.typeChecks) sharedTypeChecker().setFairShare(share.typeChecks);
}

/**
 * Starts the shared sandbox now, before the first run needs it: `runners` of the default
 * executor's runners (default 1; the engine loaded) and, unless `typecheck` is false, `checkers` of
 * the type checker's workers (default 1; TypeScript loaded, its lib files parsed). A gateway warms
 * them all, so the first runs of several owners at once wait for no engine. With `keep`, the
 * checkers stay started when idle and the executor stays open when the last code mode using it
 * closes (a server whose runs each make and close a code mode). Returns at once; what it starts
 * loads in the background and never keeps the process alive.
 */
export function warmUpSharedSandbox(
  options: { typecheck?: boolean; runners?: number; checkers?: number; keep?: boolean } = {},
): void {
  if (options.typecheck !== false)
    sharedTypeChecker().warmUp(options.checkers ?? 1, { keep: options.keep === true });
  if (options.keep && !keptOpen) {
    keptOpen = true;
    useDefaultExecutor();
  }
  // A runner that cannot start is reported by the run that needs it.
  defaultExecutor()
    .warmUp(options.runners ?? 1)
    .catch(() => {});
}
