export { createExecutor } from './create-executor.js';
export type { CreateExecutorOptions, ExecutorBackend } from './create-executor.js';
export { createQuickJSExecutor } from './quickjs-executor.js';
export type { QuickJSExecutorOptions } from './quickjs-executor.js';
export { createIsolatedVMExecutor, isIsolatedVMAvailable } from './isolated-vm-executor.js';
export type { IsolatedVMExecutorOptions } from './isolated-vm-executor.js';
export { defaultLimits, resolveLimits } from './limits.js';
export { sourceTooLarge, stripMarkdownFence } from './prepare-script.js';
export {
  ExecutionError,
  InvalidRunOptionsError,
  ExecutorClosedError,
  SandboxBusyError,
  WaitAbortedError,
} from './errors.js';
export type { SandboxResource } from './errors.js';
export { FairShare } from './fair-share.js';
export { lowerThreadPriority, restoreThreadPriority } from './thread-priority.js';
export type {
  FairShareGrant,
  FairShareLimits,
  FairShareOptions,
  FairShareSnapshot,
} from './fair-share.js';
export type {
  Executor,
  RunOptions,
  RunResult,
  RunStats,
  HostFunction,
  HostFunctionContext,
  LogEntry,
  LogLevel,
  ToolCallRecord,
  ExecutionErrorInfo,
  ExecutionErrorKind,
  ExecutionLimits,
} from './types.js';
