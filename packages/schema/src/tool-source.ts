import type { JsonSchema } from './json-schema.js';
import type { McpCallToolResultLike } from './mcp-tool-result.js';
import type { ToolAnnotations } from './define-tool.js';

/** One tool as a source lists it. */
export interface ToolSourceTool {
  /** The name to call it by (a registry's exposed, namespaced name, e.g. `fs__read_file`). */
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /** The tool's name at its origin (an MCP server's own name for it), when it was renamed. */
  originalName?: string;
  /** Where it comes from: `'native'` or an upstream server's name. */
  source?: string;
  /** `unavailable` tools stay listed (their last known definition) while their server is down. */
  status?: 'ok' | 'stale' | 'unavailable';
  /**
   * MCP `execution`: whether the tool may (`optional`), must (`required`) or must not run as a task
   * (2025-11-25 core tasks, the 2026-07-28 tasks extension).
   */
  execution?: { taskSupport?: 'required' | 'optional' | 'forbidden' };
}

export interface ToolSourceCallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** MCP `_meta` to send with the call. */
  meta?: Record<string, unknown>;
  /**
   * The caller has validated `args` against the tool's input schema (a gateway's call pipeline):
   * a source that validates too may skip its own check.
   */
  argumentsValidated?: boolean;
}

/**
 * Where tools are listed and called: `@toolwire/mcp`'s registry, the forwarder's upstreams, a
 * gateway that applies policy, or plain tools. Code mode, the forwarder and the apps are written
 * against this; `runToolSourceContract` (`@toolwire/testing`) is the suite every one runs.
 */
export interface ToolSource {
  listTools(): readonly ToolSourceTool[];
  /**
   * Calls a tool by its listed name with MCP semantics: a failing tool resolves to a result with
   * `isError` (its category in `_meta['toolwire/category']`); an unknown name never succeeds (it
   * rejects, or resolves with `isError`).
   */
  callTool(
    name: string,
    args: unknown,
    options?: ToolSourceCallOptions,
  ): Promise<McpCallToolResultLike>;
  /** Tells the listener when the tool list changed; returns the function that unsubscribes. */
  onToolsChanged?(listener: (event: { server?: string }) => void): () => void;
}
