export interface BenchRow {
  name: string;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  opsPerSec: number;
}

/** One row per task of a finished tinybench run (any tinybench version's result shape). */
export function benchRows(bench: {
  tasks: ReadonlyArray<{ name: string; result?: unknown }>;
}): BenchRow[];
