/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { startFixtureHttpServer, type FixtureHttpServer } from '@toolwire/testing/mcp';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthorizationServer, type AuthorizationServer } from './authorization-server.js';
import { freePort, modernCall, startGateway, type TestGateway } from './helpers.js';

// Per-user OAuth to an upstream that needs each user's own consent (mcpServers.<name>.auth with
// perUser): a call without the user's token gets MCP's URL elicitation error; the user opens the
// link in a browser, consents at the upstream's own authorization server (a second
// oidc-provider), and from then on the upstream receives that user's token, kept encrypted.

/** A browser: follows redirects across origins with a cookie jar per host, to the last page. */
async function browse(url: string): Promise<{ url: URL; status: number; text: string }> {
  const jars = new Map<string, Map<string, string>>();
  let next = new URL(url);
  for (let hop = 0; hop < 20; hop++) {
    const jar = jars.get(next.host) ?? new Map<string, string>();
    jars.set(next.host, jar);
    const response = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location) return { url: next, status: response.status, text: await response.text() };
    await response.body?.cancel();
    next = new URL(location, next);
  }
  throw new Error('too many redirects');
}

describe('mcpServers.<name>.auth.perUser: each user authorizes the upstream', () => {
  let gatewayIssuer: AuthorizationServer;
  let filesIssuer: AuthorizationServer;
  let fixture: FixtureHttpServer;
  let files: Server;
  let filesUrl: string;
  let gw: TestGateway;
  let tokensFile: string;
  /** The subject of each tools/call token the upstream accepted. */
  const callers: string[] = [];

  beforeAll(async () => {
    gatewayIssuer = await startAuthorizationServer();
    filesIssuer = await startAuthorizationServer({ scopes: ['files'] });
    fixture = await startFixtureHttpServer({ name: 'files', tools: ['echo'] });
    // The upstream: lists its tools to anyone, runs them only for a token its issuer gave for it.
    files = createServer((req, res) => {
      void (async () => {
        if (req.url?.startsWith('/.well-known/oauth-protected-resource')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              resource: filesUrl,
              authorization_servers: [filesIssuer.issuer],
              scopes_supported: ['files'],
            }),
          );
          return;
        }
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && body.toString().includes('"tools/call"')) {
          const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
          try {
            const { payload } = await jwtVerify(
              bearer ?? '',
              createRemoteJWKSet(new URL(`${filesIssuer.issuer}/jwks`)),
              { issuer: filesIssuer.issuer, audience: filesUrl },
            );
            callers.push(String(payload.sub));
          } catch {
            res
              .writeHead(401, {
                'www-authenticate': `Bearer resource_metadata="${new URL(filesUrl).origin}/.well-known/oauth-protected-resource/mcp"`,
              })
              .end();
            return;
          }
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers))
          if (
            typeof value === 'string' &&
            !['host', 'content-length', 'authorization'].includes(name)
          )
            headers[name] = value;
        const answer = await fetch(fixture.url, {
          method: req.method ?? 'GET',
          headers,
          ...(req.method === 'POST' ? { body } : {}),
        });
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (name !== 'content-length' && name !== 'transfer-encoding') out[name] = value;
        });
        res.writeHead(answer.status, out);
        // Streamed through: a GET stream stays open as long as the upstream keeps it.
        // (At teardown the fixture goes first: the stream's end is no failure of the test.)
        if (answer.body)
          Readable.fromWeb(answer.body as never)
            .on('error', () => res.destroy())
            .pipe(res);
        else res.end();
        res.on('close', () => void answer.body?.cancel().catch(() => {}));
      })().catch((error: Error) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(error.message);
      });
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/mcp`;

    const port = await freePort();
    tokensFile = join(mkdtempSync(join(tmpdir(), 'user-tokens-')), 'tokens.json');
    gw = await startGateway(
      {
        mcpServers: {
          files: { url: filesUrl, auth: { type: 'oauth', perUser: true } },
        },
        auth: {
          jwt: { issuer: gatewayIssuer.issuer, audience: `http://127.0.0.1:${port}/mcp` },
          userTokens: { encryptionKey: 'a test key of enough length', file: tokensFile },
        },
      },
      { port },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await new Promise<void>((resolve) => (files ? files.close(() => resolve()) : resolve()));
    await fixture?.close();
    await filesIssuer?.close();
    await gatewayIssuer?.close();
  });

  /** An access token of the gateway's issuer for `subject`. */
  async function userToken(subject: string): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return gatewayIssuer.sign({
      iss: gatewayIssuer.issuer,
      aud: `${new URL(gw.url).origin}/mcp`,
      sub: subject,
      iat: now,
      exp: now + 300,
    });
  }

  const callAs = (token: string) =>
    modernCall(
      `${gw.url}/mcp`,
      'tools/call',
      { name: 'files__echo', arguments: { text: 'hi' } },
      { authorization: `Bearer ${token}` },
    );

  it("asks each user to authorize once, then calls with that user's own token", async () => {
    // Discovery needed no user: the tool is listed.
    const alice = await userToken('alice');
    const list = await modernCall(
      `${gw.url}/mcp`,
      'tools/list',
      {},
      { authorization: `Bearer ${alice}` },
    );
    expect(list.body.result.tools.map((tool: any) => tool.name)).toContain('files__echo');

    const first = await callAs(alice);
    expect(first.body.error.code).toBe(-32042);
    const [elicitation] = first.body.error.data.elicitations;
    expect(elicitation.mode).toBe('url');
    expect(elicitation.url).toMatch(/\/auth\/upstreams\/files\/connect\?ticket=/);
    expect(callers).toEqual([]);

    // Alice opens the link and consents at the upstream's issuer as "alice@files".
    filesIssuer.user = 'alice@files';
    const landed = await browse(elicitation.url);
    expect(landed.status).toBe(200);
    expect(landed.text).toContain('Connected to files');
    const request = filesIssuer.authorizations.at(-1)!;
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('resource')).toBe(filesUrl);

    const again = await callAs(alice);
    expect(again.body.result.content[0].text).toBe('echo: hi');
    expect(callers).toEqual(['alice@files']);

    // Bob has his own authorization to make; Alice's token is never his.
    const bob = await userToken('bob');
    const bobFirst = await callAs(bob);
    expect(bobFirst.body.error.code).toBe(-32042);
    filesIssuer.user = 'bob@files';
    await browse(bobFirst.body.error.data.elicitations[0].url);
    expect((await callAs(bob)).body.result.content[0].text).toBe('echo: hi');
    expect((await callAs(alice)).body.result.content[0].text).toBe('echo: hi');
    expect(callers).toEqual(['alice@files', 'bob@files', 'alice@files']);

    // Kept encrypted at rest: two entries, no token in the clear.
    const stored = JSON.parse(readFileSync(tokensFile, 'utf8')) as Record<string, string>;
    expect(Object.keys(stored)).toHaveLength(2);
    for (const sealed of Object.values(stored)) {
      expect(sealed).toMatch(/^v1\./);
      expect(sealed).not.toContain('eyJ');
    }
  });

  it('refuses a link that was tampered with or made for another user', async () => {
    const token = await userToken('carol');
    const { url } = (await callAs(token)).body.error.data.elicitations[0];
    const tampered = url.replace(/ticket=([^.]+)\./, (_: string, body: string) => {
      const ticket = JSON.parse(Buffer.from(body, 'base64url').toString());
      ticket.subject = 'alice';
      return `ticket=${Buffer.from(JSON.stringify(ticket)).toString('base64url')}.`;
    });
    const refused = await browse(tampered);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('not valid');
  });

  it('refuses a static or absent identity', async () => {
    const answer = await modernCall(`${gw.url}/mcp`, 'tools/call', {
      name: 'files__echo',
      arguments: { text: 'hi' },
    });
    expect(answer.status).toBe(401);
  });
});
