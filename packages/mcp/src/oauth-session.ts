import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import {
  OAuthClientFlowError,
  OAuthError,
  UnauthorizedError,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { ToolwireError, errorMessage } from '@toolwire/schema';
import type { McpOAuthConfig } from '@toolwire/config';
import type { AuthorizationHandler } from './oauth-handlers.js';
import type { OAuthTokenStore } from './oauth-token-store.js';

/** The redirect URI used when neither the server entry nor the registry options name one. */
export const DEFAULT_OAUTH_REDIRECT_URL = 'http://127.0.0.1:33418/callback';

export interface OAuthSessionOptions {
  /** The server's config name. */
  server: string;
  /** The server's URL (the protected resource). */
  serverUrl: string;
  config: McpOAuthConfig;
  store: OAuthTokenStore;
  authorize: AuthorizationHandler;
  /** Used when `config.redirectUrl` is absent (default DEFAULT_OAUTH_REDIRECT_URL). */
  redirectUrl?: string;
  /** `client_name` sent with dynamic client registration (default "Toolwire"). */
  clientName?: string;
}

/**
 * The SDK's `OAuthClientProvider` for one remote MCP server. The SDK does the protocol (protected
 * resource metadata, authorization-server metadata, dynamic registration, PKCE, token exchange
 * and refresh, step-up); this class keeps the client registration and tokens in the token store,
 * the PKCE verifier and discovery state in memory, and runs the user step through the
 * authorization handler. The callback it brings back is held until the connection redeems it
 * (`takeCallback()` → `transport.finishAuth()`).
 */
export class OAuthSession implements OAuthClientProvider {
  readonly server: string;
  readonly store: OAuthTokenStore;
  /** Aborts a pending user step when the connect attempt is abandoned. */
  signal: AbortSignal | undefined;
  private readonly options: OAuthSessionOptions;
  private readonly key: string;
  private verifier: string | undefined;
  private expectedState: string | undefined;
  private discovery: OAuthDiscoveryState | undefined;
  private callback: URLSearchParams | undefined;

  constructor(options: OAuthSessionOptions) {
    this.options = options;
    this.server = options.server;
    this.store = options.store;
    this.key = `${options.server} ${options.serverUrl}`;
  }

  /** `client_credentials`: machine to machine, no user step and no redirect. */
  private get machine(): boolean {
    return this.options.config.grant === 'client_credentials';
  }

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    return (
      this.options.config.redirectUrl ?? this.options.redirectUrl ?? DEFAULT_OAUTH_REDIRECT_URL
    );
  }

  get clientMetadata(): OAuthClientMetadata {
    const { scopes } = this.options.config;
    if (this.machine)
      return {
        client_name: this.options.clientName ?? 'Toolwire',
        redirect_uris: [],
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'client_secret_basic',
        ...(scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
      };
    return {
      client_name: this.options.clientName ?? 'Toolwire',
      redirect_uris: [this.redirectUrl!],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(scopes && scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
    };
  }

  state(): string {
    this.expectedState = bytesToHex(randomBytes(16));
    return this.expectedState;
  }

  clientInformation(ctx?: OAuthClientInformationContext): StoredOAuthClientInformation | undefined {
    const { clientId, clientSecret } = this.options.config;
    // A configured client is meant for this server's authorization server, whichever it is.
    if (clientId !== undefined)
      return {
        client_id: clientId,
        ...(clientSecret ? { client_secret: clientSecret } : {}),
        ...(ctx?.issuer ? { issuer: ctx.issuer } : {}),
      };
    return this.store.get(this.key)?.clientInformation;
  }

  saveClientInformation(clientInformation: StoredOAuthClientInformation): void {
    this.store.set(this.key, { ...this.store.get(this.key), clientInformation });
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.store.get(this.key)?.tokens;
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.store.set(this.key, { ...this.store.get(this.key), tokens });
    // Discovery state only has to survive the redirect round trip; the next authorization
    // discovers again, so a server that moved to another authorization server is followed.
    this.discovery = undefined;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.machine) return undefined; // the SDK's authorization_code / refresh requests
    const params = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope) params.set('scope', scope);
    return params;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.machine)
      throw new OAuthAuthorizationError(
        'the client_credentials grant was not accepted and there is no user step to fall back on; check clientId and clientSecret',
      );
    this.callback = undefined;
    const params = await this.options.authorize({
      server: this.server,
      authorizationUrl,
      redirectUrl: this.redirectUrl!,
      ...(this.signal ? { signal: this.signal } : {}),
    });
    const error = params.get('error');
    if (error) {
      const description = params.get('error_description');
      throw new OAuthAuthorizationError(
        `the authorization server refused: ${error}${description ? ` (${description})` : ''}`,
      );
    }
    if (this.expectedState !== undefined && params.get('state') !== this.expectedState)
      throw new OAuthAuthorizationError(
        'the authorization callback carried a different state than the request (possible CSRF); not redeeming its code',
      );
    if (!params.get('code'))
      throw new OAuthAuthorizationError('the authorization callback carried no code');
    this.callback = params;
  }

  /** The callback parameters brought back by the last user step, once. */
  takeCallback(): URLSearchParams | undefined {
    const callback = this.callback;
    this.callback = undefined;
    return callback;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined)
      throw new OAuthAuthorizationError('no PKCE code verifier: the authorization was not started');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    const stored = this.store.get(this.key) ?? {};
    if (scope === 'all' || scope === 'client') delete stored.clientInformation;
    if (scope === 'all' || scope === 'tokens') delete stored.tokens;
    if (scope === 'all' || scope === 'client' || scope === 'tokens')
      this.store.set(this.key, stored);
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** The user step of an OAuth flow failed (refused, wrong state, no code). */
export class OAuthAuthorizationError extends ToolwireError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('oauth_authorization_failed', { message, cause: options.cause });
    this.name = 'OAuthAuthorizationError';
  }
}

/** True for errors that come from the OAuth flow rather than from the MCP exchange. */
export function isOAuthFailure(error: unknown): boolean {
  return (
    error instanceof OAuthAuthorizationError ||
    UnauthorizedError.isInstance(error) ||
    OAuthError.isInstance(error) ||
    OAuthClientFlowError.isInstance(error) ||
    (error instanceof Error && isOAuthFailure(error.cause))
  );
}

/** A `down` reason for an OAuth failure that says what to do about it. */
export function describeOAuthFailure(
  error: unknown,
  session: { server: string; store: OAuthTokenStore },
): string {
  const where = session.store.location ? ` (tokens are kept in ${session.store.location})` : '';
  return `OAuth authorization failed: ${errorMessage(error)}. Check mcpServers.${session.server}.auth (clientId, clientSecret, scopes, redirectUrl) and complete the authorization in the browser when asked; then reconnect${where}`;
}
