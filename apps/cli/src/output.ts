import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;

/**
 * Colour only for a terminal: never when piped, when `NO_COLOR` is set (https://no-color.org) or
 * for `TERM=dumb`; `FORCE_COLOR` (other than "0") forces it on. picocolors' own detection also
 * turns colour on for any `CI` environment, even when piped, which is wrong for a CLI's stdout.
 */
export function colorEnabled(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

export function createColors(
  stream: { isTTY?: boolean },
  env: Record<string, string | undefined>,
): Colors {
  return pc.createColors(colorEnabled(stream, env));
}

/** One line of at most `max` characters: the first line of `text`, cut with an ellipsis. */
export function oneLine(text: string | undefined, max: number): string {
  const first = (text ?? '').trim().split('\n')[0] ?? '';
  if (first.length <= max) return first;
  return `${first.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}

/** Pretty JSON for people and machines alike (stable two-space indentation). */
export function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/**
 * A write to a pipe whose reader has exited (`| head -1`) fails with EPIPE, asynchronously, as an
 * 'error' event that would otherwise crash with a stack trace: exit at once, successfully, the way
 * `cat` does when `head` has read enough.
 */
export function exitQuietlyWhenReaderLeaves(stream: NodeJS.WritableStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}
