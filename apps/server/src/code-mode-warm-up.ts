import type { ToolwireConfig } from '@toolwire/mcp';
import type { Logger } from './logger.js';

/** Where the shared sandbox is: not started, starting, ready for a first run at full speed, or failed. */
export type CodeModeWarmth = 'cold' | 'warming' | 'ready' | 'failed';

let state: CodeModeWarmth = 'cold';
let warming: Promise<void> | undefined;

export function codeModeWarmth(): CodeModeWarmth {
  return state;
}

/** Whether this config gives anyone `execute_code`: `/mcp` (the defaults) or a chat model (`models`). */
export function usesCodeMode(config: ToolwireConfig): boolean {
  const section = config.codeMode;
  if (!section) return false;
  return (
    section.enabled === true ||
    section.defaults?.enabled === true ||
    (section.models ?? []).some((entry) => entry.enabled === true)
  );
}

/**
 * Loads code mode and runs one script end to end (the TypeScript checker with its lib files, a
 * sandbox runner), in the background: the first `execute_code`, chat run or playground run then
 * costs what the second does (the first used to take 4–6 s, nearly all of it this). The checker
 * and the runner are kept started when idle from then on. Once per process; never throws.
 */
export function warmUpCodeMode(logger: Logger, reason: string): Promise<void> {
  warming ??= (async () => {
    state = 'warming';
    const started = performance.now();
    try {
      const { runCode, warmUpSharedSandbox } = await import('@toolwire/codemode');
      warmUpSharedSandbox({ keep: true });
      const run = await runCode('return 1;', { source: [], typecheck: 'error' });
      if (!run.ok) throw new Error(run.error?.message ?? 'the warm-up script failed');
      state = 'ready';
      logger.info('code mode warm', { reason, ms: Math.round(performance.now() - started) });
    } catch (error) {
      state = 'failed';
      logger.warn('code mode warm-up failed; the first run will start it', {
        reason,
        error: (error as Error).message,
      });
    }
  })();
  return warming;
}
