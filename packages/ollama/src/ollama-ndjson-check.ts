import { StreamProtocolError } from '@toolwire/schema';

/**
 * Passes an NDJSON body through unchanged, but fails it with a `StreamProtocolError` at the first
 * line that is not JSON. The `ollama` package skips such lines with a console warning; a line lost
 * silently could be a tool call, so it is an error here.
 */
export function checkedNdjson(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let pending = '';
  const check = (
    line: string,
    controller: TransformStreamDefaultController<Uint8Array>,
  ): boolean => {
    if (line.trim() === '') return true;
    try {
      JSON.parse(line);
      return true;
    } catch {
      controller.error(
        new StreamProtocolError({
          provider: 'ollama',
          message: `Ollama sent a stream line that is not JSON: ${line.length > 200 ? `${line.slice(0, 200)}…` : line}`,
        }),
      );
      return false;
    }
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (!check(line, controller)) return;
      controller.enqueue(chunk);
    },
    flush(controller) {
      pending += decoder.decode();
      check(pending, controller);
    },
  });
}
