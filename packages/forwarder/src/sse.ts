import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';

export type { EventSourceMessage };

/**
 * The events of a `text/event-stream` body, as the official SDK reads them: bytes are decoded by
 * a `TextDecoderStream` (a character split across network chunks stays whole) and parsed by
 * `eventsource-parser`.
 */
export async function* readSseEvents(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<EventSourceMessage> {
  const events = ReadableStream.from(body)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream());
  for await (const event of events) yield event;
}

/** The events of a whole `text/event-stream` text. */
export function parseSseText(text: string): EventSourceMessage[] {
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => events.push(event) });
  parser.feed(text);
  // A last event without its blank line is still an event (the stream ended).
  parser.feed('\n\n');
  return events;
}

/** One event in wire form, ending with the blank line. Multi-line data keeps one `data:` per line. */
export function formatSseEvent(event: EventSourceMessage): string {
  let out = '';
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.event !== undefined) out += `event: ${event.event}\n`;
  for (const line of event.data.split('\n')) out += `data: ${line}\n`;
  return `${out}\n`;
}
