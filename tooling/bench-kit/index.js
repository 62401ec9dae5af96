// Shared by every package's `pnpm bench`: one row per tinybench task, in microseconds, so each
// benchmark only decides which baselines to print its ratios against.
export function benchRows(bench) {
  return bench.tasks.map((task) => {
    const result = task.result ?? {};
    const latency = result.latency ?? {};
    const meanMs = latency.mean ?? result.mean ?? Number.NaN;
    return {
      name: task.name,
      meanUs: meanMs * 1000,
      p50Us: (latency.p50 ?? Number.NaN) * 1000,
      p99Us: (latency.p99 ?? Number.NaN) * 1000,
      opsPerSec: result.throughput?.mean ?? 1000 / meanMs,
    };
  });
}
