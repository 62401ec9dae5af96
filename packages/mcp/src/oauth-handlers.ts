/** What an authorization handler is asked to do: send the user to `authorizationUrl` and bring back the callback. */
export interface AuthorizationRequest {
  /** The MCP server (config name) being authorized. */
  server: string;
  /** The authorization server's URL with `client_id`, PKCE `code_challenge`, `state`, `scope`, `resource`. */
  authorizationUrl: URL;
  /** Where the authorization server sends the browser back (the registered redirect URI). */
  redirectUrl: string;
  /** Aborted when the connect attempt gives up (timeout, registry closed). */
  signal?: AbortSignal;
}

/**
 * The user step of the OAuth authorization-code flow: resolves with the query parameters of the
 * callback (`code`, `state`, and `iss` when sent, or `error` / `error_description`).
 */
export type AuthorizationHandler = (request: AuthorizationRequest) => Promise<URLSearchParams>;

export interface HeadlessAuthorizationHandlerOptions {
  /** The fetch used for the authorization request (default: global fetch). */
  fetch?: typeof fetch;
}

/**
 * For headless runs against an authorization server that approves without a user (test and
 * conformance servers, pre-approved clients): requests the authorization URL with a plain GET,
 * does not follow the redirect, and reads the callback parameters from its `Location` header.
 */
export function createHeadlessAuthorizationHandler(
  options: HeadlessAuthorizationHandlerOptions = {},
): AuthorizationHandler {
  const fetchFn = options.fetch ?? fetch;
  return async ({ authorizationUrl, signal }) => {
    const response = await fetchFn(authorizationUrl, {
      redirect: 'manual',
      ...(signal ? { signal } : {}),
    });
    await response.body?.cancel();
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location)
      throw new Error(
        `the authorization endpoint answered HTTP ${response.status} instead of redirecting back; this server needs a user to authorize (use the loopback authorization handler)`,
      );
    return new URL(location, authorizationUrl).searchParams;
  };
}
