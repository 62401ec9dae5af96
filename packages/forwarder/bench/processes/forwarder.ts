// Benchmark forwarder process: the real forwarder (policy, metrics, audit, cache on) in front of
// one upstream, configured as an application would: mcpServers + the default policy.
import { createWriteStream } from 'node:fs';
import { createForwarder } from '../../src/index.js';
import { createJsonLinesAuditSink } from '../../src/audit-log.js';
import { createHttpToolSource } from '../../test/helpers/http-tool-source.js';

const upstreamUrl = process.argv[2]!;
const auditFile = process.argv[3] ?? '/dev/null';
const source = createHttpToolSource({ up: upstreamUrl });
await source.start();
const forwarder = createForwarder({
  source,
  config: {
    mcpServers: { up: { url: upstreamUrl } },
    policy: {
      allow: ['*'],
      block: ['up__write'],
      rateLimit: { perMinute: 100_000_000 },
      timeoutMs: 30_000,
    },
    cache: { ttlSeconds: 60, maxEntries: 1000 },
  },
  audit: createJsonLinesAuditSink(createWriteStream(auditFile)),
});
const { url } = await forwarder.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ ready: `${url}/mcp` });
process.on('message', (message: { rss?: boolean }) => {
  if (message.rss) {
    globalThis.gc?.();
    const usage = process.memoryUsage();
    process.send?.({
      rss: usage.rss,
      heap: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      cache: forwarder.pipeline.cache?.size,
    });
  }
});
process.on('disconnect', () => void forwarder.close().then(() => process.exit(0)));
