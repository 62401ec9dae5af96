// Gateway layers: official SDK clients over HTTP to each gateway in front of one no-delay
// upstream (src/fixtures/gateway-upstream.ts), stdio and streamable HTTP, at 1 and 32 clients.
import { fileURLToPath } from 'node:url';
import type { Contender, Goal, Layer } from '../harness.js';
import type { UpstreamKind } from '../fixtures/gateway-upstream.js';

const script = (name: string): string =>
  fileURLToPath(new URL(`../contenders/gateway/${name}.ts`, import.meta.url));

const NOTES: Record<UpstreamKind, string[]> = {
  stdio: [
    'Each gateway spawns the upstream (the @toolwire/testing MCP fixture, official SDK server, `echo` answers at once) over stdio; clients are `@modelcontextprotocol/client` over streamable HTTP (mcp-hub: HTTP+SSE, its only client transport), each caller with its own session, in a closed loop.',
    'Floor: the callers share one SDK client on the stdio pipe, no gateway. supergateway runs stateful (its default stateless mode spawns the upstream per request); mcp-proxy runs its CLI with the event store off.',
  ],
  http: [
    'The upstream (the same fixture over streamable HTTP, its own process) is named by URL in each gateway config; clients as on the stdio layers. Floor: one SDK client per caller straight to the upstream.',
    'supergateway is absent: it has no HTTP → HTTP mode (an HTTP upstream can only be exposed over stdio). mcp-proxy’s CLI only spawns stdio servers, so it fronts the HTTP upstream through its library API (proxyServer + startHTTPServer), the process packages/forwarder/bench runs.',
  ],
};

function layer(kind: UpstreamKind, clients: number): Layer {
  const env = { GATEWAY_UPSTREAM: kind, GATEWAY_CLIENTS: String(clients) };
  const contender = (name: string, role: Contender['role'], file: string): Contender => ({
    name,
    role,
    script: script(file),
    env,
  });
  const peers = [
    contender('mcp-proxy', 'peer', 'mcp-proxy'),
    ...(kind === 'stdio' ? [contender('supergateway', 'peer', 'supergateway')] : []),
    contender('mcp-hub', 'peer', 'mcp-hub'),
  ];
  const goals: Goal[] = [
    ...peers.map((peer) => ({ subject: 'toolwire-server', against: peer.name, ratio: 1.0 })),
    { subject: 'toolwire-server', against: '@toolwire/forwarder', ratio: 0.9 },
  ];
  return {
    name: `gateway, ${kind} upstream, ${clients} client${clients === 1 ? '' : 's'}`,
    unit: 'ops/s',
    contenders: [
      contender('toolwire-server', 'toolwire', 'toolwire-server'),
      contender('@toolwire/forwarder', 'toolwire', 'forwarder'),
      ...peers,
      contender('floor (no gateway)', 'floor', 'floor'),
    ],
    goals,
    notes: NOTES[kind],
  };
}

export function gatewayLayers(): Layer[] {
  return [layer('stdio', 1), layer('stdio', 32), layer('http', 1), layer('http', 32)];
}
