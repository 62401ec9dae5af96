// Benchmark upstream process: the lean fixture server without request recording.
import { startLeanUpstream } from '../../test/fixtures/lean-upstream.js';

const upstream = await startLeanUpstream({ record: false });
process.send?.({ ready: upstream.url });
process.on('message', (message: { rss?: boolean }) => {
  if (message.rss) process.send?.({ rss: process.memoryUsage().rss });
});
process.on('disconnect', () => void upstream.close().then(() => process.exit(0)));
