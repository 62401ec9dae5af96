// Memory layer: toolwire-server on its embedded default (what `toolwire-server` with no config
// starts), idle and under a long run of calls.
import { fileURLToPath } from 'node:url';
import { envNumber, type Layer } from '../harness.js';

const script = (name: string): string =>
  fileURLToPath(new URL(`../contenders/memory/${name}.ts`, import.meta.url));

export function memoryLayers(): Layer[] {
  const calls = envNumber('MEMORY_CALLS', 1_000_000);
  const count = calls >= 1_000_000 ? `${calls / 1_000_000}M` : `${calls / 1000}k`;
  const checkpoint = calls >= 100_000 ? '100k' : count;
  const load = 'toolwire-server under load';
  const untuned = 'node dist/main.js under load (V8 defaults, no launcher)';
  return [
    {
      name: 'memory, toolwire-server on its embedded default',
      unit: 'MB',
      contenders: [
        { name: 'toolwire-server idle', role: 'toolwire', script: script('idle') },
        {
          name: load,
          role: 'toolwire',
          script: script('calls'),
          env: { MEMORY_CALLS: String(calls) },
        },
        {
          name: untuned,
          role: 'toolwire',
          script: script('calls'),
          env: { MEMORY_CALLS: String(calls), MEMORY_ENTRY: 'main' },
        },
      ],
      goals: [
        {
          subject: `${load} after ${count} calls`,
          against: `${load} after ${checkpoint} calls`,
          ratio: 1.1,
        },
      ],
      limits: [{ subject: 'toolwire-server idle', limit: 150 }],
      notes: [
        `RSS of the gateway process alone (its fs and memory stdio servers are their own processes). Idle: 5 s after /readyz answers. Under load: 32 keep-alive connections of 2026-07-28 tools/call requests to the native \`calculate\` tool; the first row is after a 10k-call warm-up, then after ${checkpoint} and ${count} calls (MEMORY_CALLS sets the total). Flat means the last ÷ the ${checkpoint} row stays ≤ 1.1. The gateway is started as \`toolwire-server\` (its launcher starts V8 with a 16 MB semi-space, no flag from the user); the third row starts \`node dist/main.js\` with V8's defaults, under which V8 grows the young generation with this load (to 134 MB, with a flat JS heap: 32.7 MB after a GC at 100k and at 1M calls).`,
      ],
    },
  ];
}
