import type { CallToolResult } from '@modelcontextprotocol/client';
import {
  CancelledError,
  TimeoutError,
  failureText,
  toolFailureFromError,
  toolOutputToMcp,
  type AnyTool,
} from '@toolwire/schema';
import type { CallToolOptions } from './registry-types.js';

/**
 * Runs one of the registry's in-process tools with an MCP result: a thrown failure becomes an
 * `isError` result with its category (`_meta['toolwire/category']`); a timeout or a cancellation
 * rejects, as an upstream's would.
 */
export async function runNativeTool(
  tool: AnyTool,
  name: string,
  args: Record<string, unknown>,
  options: CallToolOptions & { timeoutMs: number },
): Promise<CallToolResult> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const { timeoutMs } = options;
  let timer: NodeJS.Timeout | undefined;
  try {
    const running = Promise.resolve(
      tool.execute!(args, {
        toolCallId: `native_${name}`,
        signal: controller.signal,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      }),
    );
    const interrupted = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new TimeoutError({
            timeoutMs,
            message: `Tool "${name}" did not finish within ${timeoutMs} ms`,
          }),
        );
      }, timeoutMs);
      controller.signal.addEventListener(
        'abort',
        () => reject(new CancelledError({ message: `Call of "${name}" was cancelled` })),
        { once: true },
      );
    });
    const output: unknown = await Promise.race([running, interrupted]);
    return toolOutputToMcp(output);
  } catch (error) {
    if (TimeoutError.isInstance(error) || CancelledError.isInstance(error)) throw error;
    const failure = toolFailureFromError(error);
    return {
      content: [{ type: 'text', text: failureText(failure) }],
      isError: true,
      _meta: { 'toolwire/category': failure.category },
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
