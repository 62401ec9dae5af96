import { ToolwireError } from '@toolwire/schema';

/** The authorization server's metadata (RFC 8414 / OpenID Connect Discovery), the parts read here. */
export interface AuthorizationServerMetadata {
  issuer: string;
  jwks_uri?: string;
  token_endpoint?: string;
  authorization_endpoint?: string;
  introspection_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  [key: string]: unknown;
}

/** The authorization server could not be read (metadata, keys, a token or introspection endpoint). */
export class AuthorizationServerError extends ToolwireError {
  readonly url: string;
  constructor(options: { url: string; message: string; cause?: unknown }) {
    super('authorization_server_unavailable', {
      message: options.message,
      cause: options.cause,
    });
    this.name = 'AuthorizationServerError';
    this.url = options.url;
  }
}

const FETCH_TIMEOUT_MS = 10_000;

/** GETs a JSON document of the authorization server; any failure is an `AuthorizationServerError`. */
export async function fetchJson(url: string, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (cause) {
    throw new AuthorizationServerError({
      url,
      message: `${what} at ${url} could not be fetched: ${(cause as Error).message}`,
      cause,
    });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new AuthorizationServerError({
      url,
      message: `${what} at ${url} answered HTTP ${response.status}`,
    });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch (cause) {
    throw new AuthorizationServerError({ url, message: `${what} at ${url} is not JSON`, cause });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AuthorizationServerError({ url, message: `${what} at ${url} is not a JSON object` });
  }
  return body as Record<string, unknown>;
}

/**
 * The metadata URLs of an issuer, in the order tried: RFC 8414's (the well-known segment inserted
 * before the issuer's path) and OpenID Connect Discovery's (appended to it).
 */
function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
    `${url.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Reads the issuer's metadata; its `issuer` must be the configured one (RFC 8414 section 3.3), so
 * that a document served elsewhere cannot name other keys.
 */
export async function discoverAuthorizationServer(
  issuer: string,
): Promise<AuthorizationServerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let document: Record<string, unknown>;
    try {
      document = await fetchJson(url, 'authorization server metadata');
    } catch (error) {
      failures.push((error as Error).message);
      continue;
    }
    if (document.issuer !== issuer) {
      throw new AuthorizationServerError({
        url,
        message: `authorization server metadata at ${url} names issuer ${JSON.stringify(document.issuer)}, not ${issuer} (auth.jwt.issuer)`,
      });
    }
    return document as AuthorizationServerMetadata;
  }
  throw new AuthorizationServerError({ url: issuer, message: failures.join('; ') });
}
