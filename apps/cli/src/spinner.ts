import ora, { type Ora } from 'ora';
import type { Colors } from './output.js';

/**
 * A spinner on `stream`, animated only when it is a terminal (nothing is printed otherwise).
 * While it spins, typed keys are swallowed and Ctrl-C is turned back into a real SIGINT, so the
 * command's own SIGINT handling (cancel the turn, or the default exit) applies. That needs a
 * terminal whose input is already being read (the interactive chat's prompt reads it): where
 * nothing reads it (`chat --once`), pass `discardStdin: false` and the terminal itself turns
 * Ctrl-C into SIGINT (the swallowing reads only when input flows, so Ctrl-C would be lost).
 */
export function createSpinner(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  colors: Colors,
  options: { discardStdin?: boolean } = {},
): Ora {
  return ora({
    stream: stream as NodeJS.WriteStream,
    color: colors.isColorSupported ? 'cyan' : false,
    discardStdin: options.discardStdin ?? true,
  });
}
