import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { Forwarder } from './forwarder.js';
import { isRecord, PARSE_ERROR, type JsonRpcId } from './json-rpc.js';

/**
 * Serves the forwarder over stdio (newline-delimited JSON-RPC, as MCP's stdio transport), for
 * clients that spawn it as a subprocess. Stdio has no bearer token: auth does not apply, policy does.
 */
export function serveStdio(
  forwarder: Forwarder,
  input: Readable = process.stdin,
  output: Writable = process.stdout,
): { close(): void; done: Promise<void> } {
  const lines = createInterface({ input, crlfDelay: Infinity });
  const inflight = new Map<JsonRpcId, AbortController>();
  const write = (message: unknown): void => {
    output.write(`${JSON.stringify(message)}\n`);
  };
  const unsubscribe = forwarder.pipeline.onChange(() =>
    write({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
  );
  const unsubscribeLists = forwarder.pipeline.source.onListChanged?.(({ kind }) => {
    if (kind !== 'tools') write({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` });
  });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      write({
        jsonrpc: '2.0',
        id: null,
        error: { code: PARSE_ERROR, message: 'Parse error: the line is not valid JSON' },
      });
      return;
    }
    if (
      isRecord(message) &&
      message.method === 'notifications/cancelled' &&
      isRecord(message.params)
    ) {
      const id = message.params.requestId;
      if (typeof id === 'string' || typeof id === 'number') inflight.get(id)?.abort();
      return;
    }
    const id =
      isRecord(message) && (typeof message.id === 'string' || typeof message.id === 'number')
        ? message.id
        : undefined;
    const controller = new AbortController();
    if (id !== undefined) inflight.set(id, controller);
    void forwarder
      .dispatch(message, {
        signal: controller.signal,
        modern: false,
        notify: (n) => write({ jsonrpc: '2.0', ...n }),
      })
      .then((response) => {
        if (response !== undefined) write(response);
      })
      .finally(() => {
        if (id !== undefined) inflight.delete(id);
      });
  });
  const done = new Promise<void>((resolve) => lines.once('close', resolve));
  return {
    done,
    close() {
      unsubscribe();
      unsubscribeLists?.();
      lines.close();
    },
  };
}
