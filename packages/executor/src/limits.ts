import { InvalidRunOptionsError } from './errors.js';
import type { ExecutionLimits } from './types.js';

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
