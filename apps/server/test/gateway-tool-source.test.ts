import { runToolSourceContract } from '@toolwire/testing/tool-source';
import { gatewayToolSource } from '../src/gateway-tool-source.js';
import { startGateway } from './helpers.js';

runToolSourceContract({
  name: 'toolwire-server gateway tool source (calls through the forwarder pipeline)',
  announcesChanges: false,
  setup: async () => {
    const gateway = await startGateway({ nativeTools: ['hash', 'calculate'] });
    return {
      source: gatewayToolSource(gateway.server.runtime, undefined),
      call: { name: 'calculate', args: { expression: '6*7' }, text: '42' },
      close: () => gateway.close(),
    };
  },
});
