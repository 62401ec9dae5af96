import { runToolSourceContract } from '@toolwire/testing/tool-source';
import { startLeanUpstream } from '../test/fixtures/lean-upstream.js';
import { createHttpToolSource } from '../test/helpers/http-tool-source.js';

runToolSourceContract({
  name: '@toolwire/forwarder HTTP tool source (bench and conformance upstreams)',
  announcesChanges: true,
  setup: async () => {
    const upstream = await startLeanUpstream();
    const source = createHttpToolSource({ lean: upstream.url });
    await source.start();
    return {
      source,
      call: { name: 'lean__echo', args: { text: 'over http' }, text: 'over http' },
      changeTools: () => source.refresh('lean'),
      close: async () => {
        await source.close();
        await upstream.close();
      },
    };
  },
});
