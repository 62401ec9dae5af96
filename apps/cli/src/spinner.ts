import ora, { type Ora } from 'ora';
import type { Colors } from './output.js';

/**
 * A spinner on `stream`, animated only when it is a terminal (nothing is printed otherwise).
 * While it spins, typed keys are swallowed and Ctrl-C is turned back into a real SIGINT, so the
 * command's own SIGINT handling (cancel the turn, or the default exit) applies.
 */
export function createSpinner(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  colors: Colors,
): Ora {
  return ora({
    stream: stream as NodeJS.WriteStream,
    color: colors.isColorSupported ? 'cyan' : false,
    discardStdin: true,
  });
}
