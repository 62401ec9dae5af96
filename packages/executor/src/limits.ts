import { InvalidRunOptionsError } from './errors.js';

/** Every limit a run is held to. Sizes are UTF-8 bytes; times are milliseconds. */
export interface ExecutionLimits {
  /** Wall time for the whole run, including time spent awaiting tools. */
  timeoutMs: number;
  /** Heap the script may use (engine limit; the worker or isolate is capped too). */
  memoryBytes: number;
  /** Call stack the script may use. */
  stackBytes: number;
  /** Size of the script itself, checked before it is parsed. */
  maxSourceBytes: number;
  /** Size of the returned value as JSON. */
  maxResultBytes: number;
  /** Console output kept; later output is dropped and the result says it was truncated. */
  maxLogBytes: number;
  maxLogLines: number;
  /** Tool calls per run; one more ends the run with `too-many-tool-calls`. */
  maxToolCalls: number;
  /** Tool calls running at once; further calls wait for a free slot. */
  maxInFlight: number;
  /** Size of one tool call's arguments as JSON. */
  maxToolInputBytes: number;
  /** Size of one tool call's result as JSON. */
  maxToolOutputBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The defaults of the code-mode reference's table (Vercel's set). */
export const defaultLimits: Readonly<ExecutionLimits> = Object.freeze({
  timeoutMs: 30_000,
  memoryBytes: 64 * MiB,
  stackBytes: 512 * KiB,
  maxSourceBytes: 256 * KiB,
  maxResultBytes: 1 * MiB,
  maxLogBytes: 64 * KiB,
  maxLogLines: 1000,
  maxToolCalls: 256,
  maxInFlight: 32,
  maxToolInputBytes: 1 * MiB,
  maxToolOutputBytes: 4 * MiB,
});

const minimums: Readonly<Record<keyof ExecutionLimits, number>> = {
  timeoutMs: 1,
  memoryBytes: 1 * MiB,
  stackBytes: 16 * KiB,
  maxSourceBytes: 1,
  maxResultBytes: 1,
  maxLogBytes: 0,
  maxLogLines: 0,
  maxToolCalls: 0,
  maxInFlight: 1,
  maxToolInputBytes: 1,
  maxToolOutputBytes: 1,
};

/** Fills in defaults and checks every given limit; throws `InvalidRunOptionsError` naming the field. */
export function resolveLimits(
  ...layers: Array<Partial<ExecutionLimits> | undefined>
): ExecutionLimits {
  const limits: ExecutionLimits = { ...defaultLimits };
  for (const layer of layers) {
    if (layer === undefined) continue;
    if (typeof layer !== 'object' || layer === null) {
      throw new InvalidRunOptionsError({ path: 'limits', message: 'expected an object of limits' });
    }
    for (const [key, value] of Object.entries(layer)) {
      if (!(key in defaultLimits)) {
        throw new InvalidRunOptionsError({
          path: `limits.${key}`,
          message: `unknown limit; known limits are ${Object.keys(defaultLimits).join(', ')}`,
        });
      }
      if (value === undefined) continue;
      const name = key as keyof ExecutionLimits;
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimums[name]) {
        throw new InvalidRunOptionsError({
          path: `limits.${key}`,
          message: `expected an integer >= ${minimums[name]}, got ${JSON.stringify(value) ?? String(value)}`,
        });
      }
      limits[name] = value;
    }
  }
  return limits;
}
