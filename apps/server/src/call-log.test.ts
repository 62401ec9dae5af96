import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '@toolwire/forwarder';
import { CallLog } from './call-log.js';

const entry = (tool: string, outcome: AuditEntry['outcome'] = 'ok'): AuditEntry => ({
  time: new Date(0).toISOString(),
  client: 'anonymous',
  tool,
  upstream: 'native',
  durationMs: Number(tool.slice(1)),
  outcome,
  arguments: { secret: '[string]' },
});

describe('CallLog', () => {
  it('keeps the last N calls oldest first, without their arguments, once the ring has wrapped', () => {
    const log = new CallLog(3);
    for (let i = 1; i <= 5; i++) log.push(entry(`t${i}`));
    const calls = log.after(0, () => true);
    expect(calls.map((call) => [call.tool, call.seq])).toEqual([
      ['t3', 3],
      ['t4', 4],
      ['t5', 5],
    ]);
    expect(calls.every((call) => !('arguments' in call))).toBe(true);
    expect(log.after(4, () => true).map((call) => call.tool)).toEqual(['t5']);
    expect(log.totals.calls).toBe(5);
    expect(log.summary(() => true)).toMatchObject({ calls: 3, ok: 3, p50: 4 });
  });

  it('takes percentiles over recent durations, refused calls left out', () => {
    const log = new CallLog(10);
    log.push(entry('t10'));
    log.push(entry('t20'));
    log.push(entry('t99', 'refused'));
    expect(log.percentiles()).toEqual({ p50: 20, p95: 20 });
    expect(log.totals.refused).toBe(1);
  });
});
