/** Where the registry reports what happens (warnings: collisions, servers down, dropped tools). */
export interface Logger {
  debug?: (message: string) => void;
  info?: (message: string) => void;
  warn: (message: string) => void;
  error?: (message: string) => void;
}

/** Warnings and errors to stderr; nothing else. */
export const stderrLogger: Logger = {
  warn: (message) => process.stderr.write(`[toolwire/mcp] warning: ${message}\n`),
  error: (message) => process.stderr.write(`[toolwire/mcp] error: ${message}\n`),
};
