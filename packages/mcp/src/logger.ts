/** Where the registry reports what happens (warnings: collisions, servers down, dropped tools). */
export interface Logger {
  debug?: (message: string) => void;
  info?: (message: string) => void;
  warn: (message: string) => void;
  error?: (message: string) => void;
}

/** Warnings and errors to stderr (through the console, which every runtime has); nothing else. */
export const stderrLogger: Logger = {
  warn: (message) => console.error(`[toolwire/mcp] warning: ${message}`),
  error: (message) => console.error(`[toolwire/mcp] error: ${message}`),
};
