// Every layer the peer bench measures. Each entry builds its contenders and goals; the runner in
// ../harness.ts runs them. Add a layer by adding one entry here.
import type { Layer } from '../harness.js';
import { agentLayers } from './agent.js';
import { cliStartLayers } from './cli-start.js';
import { gatewayLayers } from './gateway.js';
import { mcpClientLayers } from './mcp-client.js';
import { memoryLayers } from './memory.js';

export const layers: Record<string, () => Promise<Layer[]> | Layer[]> = {
  agent: agentLayers,
  'mcp-client': mcpClientLayers,
  gateway: gatewayLayers,
  memory: memoryLayers,
  'cli-start': cliStartLayers,
};
