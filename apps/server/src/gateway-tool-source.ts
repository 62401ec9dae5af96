import type { CodeModeToolSource } from '@toolwire/codemode';
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

/**
 * The gateway's tools as this token may use them, every call sent through the forwarder's policy
 * pipeline as that caller (what `/api/code` and the chat endpoints run code against).
 */
export function gatewayToolSource(
  runtime: Runtime,
  token: AuthToken | undefined,
): CodeModeToolSource {
  return runtime.forwarder.pipeline.asCaller(token ? { token } : {});
}
