import { dirname, join } from 'node:path';
import type { McpServerConfig } from '@toolwire/config';
import { toolwireCacheDir } from './default-config.js';
import type { Logger } from './logger.js';
import { createLoopbackAuthorizationHandler, type AuthorizationHandler } from './oauth-handlers.js';
import { OAuthSession } from './oauth-session.js';
import { FileOAuthTokenStore, type OAuthTokenStore } from './oauth-token-store.js';

/** `createRegistry({ oauth })`: how remote servers with `auth: { type: "oauth" }` are authorized. */
export interface RegistryOAuthOptions {
  /**
   * Where tokens and dynamic client registrations are kept: a file path, or a store of your own.
   * Default: `oauth-tokens.json` next to `cacheFile`, else in `toolwireCacheDir()`; mode 0600.
   */
  store?: string | OAuthTokenStore;
  /** The user step. Default: the loopback handler (prints the URL through the logger's warn). */
  authorize?: AuthorizationHandler;
  /** Redirect URI for servers whose `auth.redirectUrl` is not set (default `http://127.0.0.1:33418/callback`). */
  redirectUrl?: string;
  /** `client_name` for dynamic client registration (default "Toolwire"). */
  clientName?: string;
}

/** Builds the OAuth sessions of a registry, sharing one token store. */
export function createOAuthSessionFactory(
  options: RegistryOAuthOptions | undefined,
  context: { cacheFile?: string; logger: Logger },
): (name: string, config: McpServerConfig) => OAuthSession | undefined {
  let store: OAuthTokenStore | undefined;
  let authorize: AuthorizationHandler | undefined;
  return (name, config) => {
    if (config.auth?.type !== 'oauth' || config.url === undefined) return undefined;
    store ??=
      typeof options?.store === 'object'
        ? options.store
        : new FileOAuthTokenStore(
            options?.store ??
              join(
                context.cacheFile ? dirname(context.cacheFile) : toolwireCacheDir(),
                'oauth-tokens.json',
              ),
            { onProblem: (message) => context.logger.warn(message) },
          );
    authorize ??=
      options?.authorize ??
      createLoopbackAuthorizationHandler({ print: (message) => context.logger.warn(message) });
    return new OAuthSession({
      server: name,
      serverUrl: config.url,
      config: config.auth,
      store,
      authorize,
      ...(options?.redirectUrl ? { redirectUrl: options.redirectUrl } : {}),
      ...(options?.clientName ? { clientName: options.clientName } : {}),
    });
  };
}
