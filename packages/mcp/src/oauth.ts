import type { McpServerConfig } from '@toolwire/config';
import type { AuthorizationHandler } from './oauth-handlers.js';
import { OAuthSession } from './oauth-session.js';
import { MemoryOAuthTokenStore, type OAuthTokenStore } from './oauth-token-store.js';
import type { RegistryOAuthOptions } from './registry-types.js';

/** Outside Node there is no browser to send the user to: the caller must say how. */
const noAuthorizationHandler: AuthorizationHandler = ({ server }) =>
  Promise.reject(
    new Error(
      `MCP server "${server}" needs an OAuth authorization and no handler was given: pass createRegistry({ oauth: { authorize } }), or use createRegistry from @toolwire/mcp/node (the loopback handler)`,
    ),
  );

/** Builds the OAuth sessions of a registry, sharing one token store. */
export function createOAuthSessionFactory(
  options: RegistryOAuthOptions | undefined,
): (name: string, config: McpServerConfig) => OAuthSession | undefined {
  let store: OAuthTokenStore | undefined;
  return (name, config) => {
    // A per-user server is authorized by each caller at the gateway, never by the registry.
    if (config.auth?.type !== 'oauth' || config.auth.perUser || config.url === undefined)
      return undefined;
    store ??= options?.store ?? new MemoryOAuthTokenStore();
    return new OAuthSession({
      server: name,
      serverUrl: config.url,
      config: config.auth,
      store,
      authorize: options?.authorize ?? noAuthorizationHandler,
      ...(options?.redirectUrl ? { redirectUrl: options.redirectUrl } : {}),
      ...(options?.clientName ? { clientName: options.clientName } : {}),
    });
  };
}
