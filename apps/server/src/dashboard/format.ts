// One set of words for outcomes: the call panel, the log and the metrics all use these.
const OUTCOMES: Record<string, string> = {
  ok: 'ok',
  cached: 'cached',
  tool_error: 'tool error',
  refused: 'refused',
  error: 'error',
  cancelled: 'cancelled',
  running: 'running',
};
export const outcomeLabel = (outcome: string): string => OUTCOMES[outcome] ?? outcome;
// Policy, rate limit and invalid arguments: the gateway refused the call (as its audit log says).
export const REFUSED_CODES = [-32003, -32029, -32602];

/** 0.4 ms, 12 ms, 1.3 s, 2 min 5 s, 3 h 4 min. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 10) return `${Math.round(ms * 10) / 10} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60000) return `${Math.round(ms / 100) / 10} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
