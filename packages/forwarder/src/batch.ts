import type { CallContext } from './call/call-context.js';
import type { CallPipeline } from './call/call-pipeline.js';
import { JsonRpcFault } from './json-rpc.js';
import type { CallToolResult } from './tool-source.js';

export interface BatchCall {
  name: string;
  arguments?: unknown;
}

export type BatchResult =
  | { name: string; ok: true; result: CallToolResult }
  | { name: string; ok: false; error: { code: number; message: string; data?: unknown } };

/**
 * Runs many calls through the full pipeline: grouped by upstream, groups in parallel, at most
 * `concurrencyPerUpstream` in flight per upstream (default 8) so one batch cannot swamp a server.
 * Results come back in the order of `calls`; one failure never fails the others.
 */
export async function runBatch(
  pipeline: CallPipeline,
  calls: readonly BatchCall[],
  context: CallContext & { concurrencyPerUpstream?: number } = {},
): Promise<BatchResult[]> {
  const limit = Math.max(1, context.concurrencyPerUpstream ?? 8);
  const tools = pipeline.tools();
  const groups = new Map<string, number[]>();
  calls.forEach((call, i) => {
    const server = tools.get(call.name)?.server ?? '(unknown)';
    const group = groups.get(server) ?? [];
    group.push(i);
    groups.set(server, group);
  });
  const results = new Array<BatchResult>(calls.length);
  await Promise.all(
    [...groups.values()].map(async (indexes) => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < indexes.length) {
          const i = indexes[next++]!;
          const call = calls[i]!;
          try {
            results[i] = {
              name: call.name,
              ok: true,
              result: await pipeline.call(call.name, call.arguments ?? {}, context),
            };
          } catch (error) {
            const fault =
              error instanceof JsonRpcFault ? error : new JsonRpcFault(-32603, String(error));
            results[i] = { name: call.name, ok: false, error: fault.toError() };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(limit, indexes.length) }, worker));
    }),
  );
  return results;
}
