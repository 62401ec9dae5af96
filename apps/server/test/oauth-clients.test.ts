/* eslint-disable @typescript-eslint/no-explicit-any -- tests read nested JSON answers */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizeLikeABrowser,
  startAuthorizationServer,
  type AuthorizationServer,
} from './authorization-server.js';
import { freePort, startGateway, waitFor, type TestGateway } from './helpers.js';

// Real MCP clients sign in to the gateway on their own: the official SDK client's OAuth flow
// (discovery from the 401, dynamic client registration, PKCE, token, call; a Client ID Metadata
// Document needs an https URL, which the SDK insists on and a loopback test cannot give) and mcp-remote's (which sends a
// person to a browser: the test follows its printed URL as a browser would), against oidc-provider.

const mcpRemoteBin = fileURLToPath(
  new URL('../node_modules/mcp-remote/dist/proxy.js', import.meta.url),
);

/** An SDK OAuth client provider kept in memory; the "browser" is a redirect-following fetch. */
function sdkProvider(
  as: AuthorizationServer,
): OAuthClientProvider & { callback?: URLSearchParams } {
  const redirectUrl = 'http://127.0.0.1:45199/callback';
  let client: any;
  let tokens: any;
  let verifier = '';
  const provider: OAuthClientProvider & { callback?: URLSearchParams } = {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return {
        client_name: 'sdk test client',
        redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      };
    },
    clientInformation: () => client,
    saveClientInformation: (info) => {
      client = info;
    },
    tokens: () => tokens,
    saveTokens: (saved) => {
      tokens = saved;
    },
    async redirectToAuthorization(url) {
      const back = await authorizeLikeABrowser(url.toString(), as.issuer);
      provider.callback = back.searchParams;
      if (!back.searchParams.get('code')) throw new Error(`no code in ${back}`);
    },
    saveCodeVerifier: (value) => {
      verifier = value;
    },
    codeVerifier: () => verifier,
  };
  return provider;
}

describe('OAuth clients against the gateway and oidc-provider', () => {
  let as: AuthorizationServer;
  let gw: TestGateway;
  let audience: string;

  beforeAll(async () => {
    as = await startAuthorizationServer();
    const port = await freePort();
    audience = `http://127.0.0.1:${port}/mcp`;
    gw = await startGateway(
      {
        mcpServers: {},
        auth: {
          jwt: {
            issuer: as.issuer,
            audience,
            scopes: { 'tools:all': ['*'], math: ['calculate'] },
          },
        },
      },
      { port },
    );
  });
  afterAll(async () => {
    await gw?.close();
    await as?.close();
  });

  /** Connects the SDK client the way an application does: authorize on the 401, then again. */
  async function connectWithSdk(provider: ReturnType<typeof sdkProvider>): Promise<Client> {
    const url = new URL(`${gw.url}/mcp`);
    const first = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    try {
      await first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      return first;
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    expect(provider.callback, 'the SDK sent the user to authorize').toBeDefined();
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    // The whole redirect: its `iss` is checked against the issuer (RFC 9207).
    await transport.finishAuth(provider.callback!);
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('the official SDK client discovers, registers itself, authorizes with PKCE and calls', async () => {
    as.user = 'alice';
    const before = as.authorizations.length;
    const client = await connectWithSdk(sdkProvider(as));
    try {
      const request = as.authorizations[before]!;
      expect(request.get('code_challenge_method')).toBe('S256');
      expect(request.get('resource')).toBe(audience);
      expect(request.get('scope')?.split(' ')).toEqual(
        expect.arrayContaining(['tools:all', 'math']),
      );
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['calculate', 'hash', 'time']);
      const result = await client.callTool({ name: 'calculate', arguments: { expression: '2+3' } });
      expect((result.structuredContent as any).result).toBe(5);
      // The user who consented is the client the gateway records.
      const audit = await waitFor(
        () => gw.logs.find((line) => line.event === 'tool_call' && line.client === 'alice'),
        'an audit line for alice',
      );
      expect(audit.tool).toBe('calculate');
    } finally {
      await client.close();
    }
  });

  it("mcp-remote's sign-in: the URL it prints, consent in the browser, then tools over stdio", async () => {
    as.user = 'carol';
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        mcpRemoteBin,
        `${gw.url}/mcp`,
        String(callbackPort),
        '--host',
        '127.0.0.1',
        '--allow-http',
      ],
      env: {
        ...(process.env as Record<string, string>),
        MCP_REMOTE_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'mcp-remote-')),
        // No desktop here: its attempt to open a browser fails and it says so.
        DISPLAY: '',
        BROWSER: 'false',
      },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'mcp-remote-test', version: '1.0.0' });
    const connected = client.connect(transport);
    try {
      const url = await waitFor(
        () => /Please authorize this client by visiting:\s*(\S+)/.exec(stderr)?.[1],
        () => `mcp-remote's authorization URL; its stderr: ${stderr}`,
        30_000,
      );
      // The browser: consent at the issuer, then the redirect to mcp-remote's loopback callback.
      const callback = await authorizeLikeABrowser(url, as.issuer);
      expect(callback.port).toBe(String(callbackPort));
      const landed = await fetch(callback);
      expect(landed.status).toBe(200);
      await connected;
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('calculate');
      const result = await client.callTool({
        name: 'calculate',
        arguments: { expression: '3*3' },
      });
      expect((result.structuredContent as any).result).toBe(9);
      await waitFor(
        () => gw.logs.find((line) => line.event === 'tool_call' && line.client === 'carol'),
        'an audit line for carol',
      );
    } finally {
      await client.close().catch(() => {});
    }
  });
});
