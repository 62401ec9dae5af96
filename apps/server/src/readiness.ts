import { upstreamHealth } from '@toolwire/forwarder';
import type { Runtime } from './runtime.js';

/**
 * `/readyz`'s status word and code, the same for every caller: 503 `unavailable` when every enabled
 * upstream is down, 200 `degraded` when some are not healthy, else 200 `ready`. Calls, probes and
 * breakers of the forwarder decide at once (`withLiveHealth`); an idle (lazy, not yet connected)
 * upstream is healthy: it connects on first use.
 */
export function readiness(runtime: Runtime): {
  status: 'ready' | 'degraded' | 'unavailable';
  code: number;
} {
  const health = runtime.forwarder
    .servers()
    .filter((s) => s.status !== 'disabled')
    .map((s) => upstreamHealth(s.status).state);
  if (health.length > 0 && health.every((state) => state === 'down')) {
    return { status: 'unavailable', code: 503 };
  }
  return { status: health.some((state) => state !== 'healthy') ? 'degraded' : 'ready', code: 200 };
}

/** What a client of `/mcp` lists, to tell whether a reload changed it. */
export function toolListing(runtime: Runtime): string {
  return JSON.stringify(
    runtime.forwarder.pipeline
      .visibleTools(undefined)
      .tools.map(({ tool }) => [
        tool.name,
        tool.description,
        tool.inputSchema,
        tool.outputSchema,
        tool.annotations,
      ]),
  );
}
