import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers.js';
import { NEW_ROOTS, sdkV1Client, sdkV2Client, type ProtocolClient } from './clients.js';
import { startEverything, type Everything } from './everything.js';

let everything: Everything;
let gateway: TestGateway;

beforeAll(async () => {
  everything = await startEverything();
  gateway = await startGateway({ mcpServers: { everything: { url: everything.url } } } as never, {
    clientRequestTimeoutMs: 3000,
  });
});
afterAll(async () => {
  await gateway?.close();
  await everything?.kill();
});

const text = (result: unknown): string =>
  ((result as { content?: Array<{ text?: string }> }).content ?? [])
    .map((c) => c.text ?? '')
    .join('\n');

describe('server-to-client requests through /mcp (2025-11-25)', () => {
  for (const kind of ['v2', 'v1'] as const) {
    it(`${kind}: lists the capability-gated tools and answers sampling, elicitation and roots as straight to the server`, async () => {
      const open = (url: string): Promise<ProtocolClient> =>
        kind === 'v2' ? sdkV2Client(url, 'legacy') : sdkV1Client(url);
      const direct = await open(everything.url);
      const gated = await open(`${gateway.url}/mcp`);
      try {
        const directNames = (await direct.listTools()).map((t) => t.name).sort();
        const gatedNames = (await gated.listTools())
          .map((t) => t.name)
          .filter((n) => n.startsWith('everything__'))
          .map((n) => n.slice('everything__'.length))
          .sort();
        expect(directNames).toContain('trigger-sampling-request');
        expect(gatedNames).toEqual(directNames);

        const pairs: Array<[string, Record<string, unknown>]> = [
          ['trigger-sampling-request', { prompt: 'capital of France?' }],
          ['trigger-elicitation-request', {}],
          ['trigger-url-elicitation', { url: 'https://example.com/ok', elicitationId: 'e1' }],
          ['get-roots-list', {}],
        ];
        for (const [tool, args] of pairs) {
          const straight = text(await direct.callTool(tool, args));
          const through = text(await gated.callTool(`everything__${tool}`, args));
          expect(through, tool).toBe(straight);
        }
        expect(gated.seen.map((s) => s.method)).toEqual(direct.seen.map((s) => s.method));

        // -32042: URL elicitation required, as an error with its elicitations.
        const failure = async (client: ProtocolClient, name: string) =>
          client.callTool(name, { url: 'https://example.com/x', errorPath: true }).then(
            () => undefined,
            (error: { code?: number; data?: unknown }) => ({ code: error.code, data: error.data }),
          );
        const directError = await failure(direct, 'trigger-url-elicitation');
        const gatedError = await failure(gated, 'everything__trigger-url-elicitation');
        expect(directError?.code).toBe(-32042);
        expect(gatedError?.code).toBe(-32042);

        // Roots change: the upstream is told and asks again.
        await direct.setRoots(NEW_ROOTS);
        await gated.setRoots(NEW_ROOTS);
        await expect
          .poll(async () => text(await gated.callTool('everything__get-roots-list', {})))
          .toContain('file:///srv/docs');
        expect(text(await direct.callTool('get-roots-list', {}))).toContain('file:///srv/docs');
      } finally {
        await direct.close();
        await gated.close();
      }
    });
  }
});
