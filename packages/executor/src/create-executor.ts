import { UnsupportedFeatureError } from '@toolwire/schema';
import { InvalidRunOptionsError } from './errors.js';
import { createIsolatedVMExecutor } from './isolated-vm-executor.js';
import { createQuickJSExecutor } from './quickjs-executor.js';
import type { FairShareOptions } from './fair-share.js';
import type { ExecutionLimits } from './types.js';
import type { Executor } from './types.js';

export type ExecutorBackend = 'quickjs' | 'isolated-vm' | 'auto';

export interface CreateExecutorOptions {
  /**
   * 'quickjs' (default): QuickJS/WebAssembly in worker threads, no native code.
   * 'isolated-vm': V8 isolates; rejects with UnsupportedFeatureError when isolated-vm cannot load.
   * 'auto': isolated-vm when it loads, otherwise QuickJS.
   */
  backend?: ExecutorBackend;
  poolSize?: number;
  limits?: Partial<ExecutionLimits>;
  /** How runs of different owners share the pool (see `QuickJSExecutorOptions.fairShare`). */
  fairShare?: FairShareOptions;
}

export async function createExecutor(options: CreateExecutorOptions = {}): Promise<Executor> {
  const { backend = 'quickjs', ...rest } = options;
  if (backend === 'quickjs') return createQuickJSExecutor(rest);
  if (backend === 'isolated-vm') return createIsolatedVMExecutor(rest);
  if (backend === 'auto') {
    try {
      return await createIsolatedVMExecutor(rest);
    } catch (error) {
      if (!UnsupportedFeatureError.isInstance(error)) throw error;
      return createQuickJSExecutor(rest);
    }
  }
  throw new InvalidRunOptionsError({
    path: 'backend',
    message: `expected 'quickjs', 'isolated-vm' or 'auto', got ${JSON.stringify(backend)}`,
  });
}
