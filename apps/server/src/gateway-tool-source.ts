import type { CallToolResultLike, CodeModeToolSource } from '@toolwire/codemode';
import type { AuthToken } from '@toolwire/forwarder';
import type { Runtime } from './runtime.js';

/** Tools this token may see, as the dashboard and the playground show them. */
export function visibleTools(runtime: Runtime, token: AuthToken | undefined) {
  return runtime.forwarder.pipeline.visibleTools(token).tools.map(({ tool }) => ({
    name: tool.name,
    description: tool.description ?? '',
    source: tool.source,
    originalName: tool.originalName,
    status: tool.status ?? 'ok',
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as Record<string, unknown> } : {}),
    ...(tool.annotations ? { annotations: tool.annotations } : {}),
  }));
}

/** A code-mode tool source that sends every call through the forwarder's policy pipeline. */
export function gatewayToolSource(
  runtime: Runtime,
  token: AuthToken | undefined,
): CodeModeToolSource {
  return {
    listTools: () => visibleTools(runtime, token),
    callTool: async (name, args, options = {}) =>
      (await runtime.forwarder.callTool(name, args, {
        token,
        ...(options.signal ? { signal: options.signal } : {}),
      })) as CallToolResultLike,
  };
}
