import { dirname, join } from 'node:path';
import { toolwireCacheDir } from './default-config.js';
import { FileOAuthTokenStore } from './file-oauth-token-store.js';
import { stderrLogger } from './logger.js';
import { createLoopbackAuthorizationHandler } from './oauth-loopback-handler.js';
import type { OAuthTokenStore } from './oauth-token-store.js';
import { createRegistry as createPortableRegistry } from './registry.js';
import type {
  CreateRegistryOptions as PortableCreateRegistryOptions,
  Registry,
  RegistryOAuthOptions as PortableRegistryOAuthOptions,
} from './registry-types.js';
import { ProcessTransport } from './stdio-transport.js';
import { ToolCacheFile } from './tool-cache-file.js';

/** `createRegistry({ oauth })` under Node: the token store may be a file path. */
export interface RegistryOAuthOptions extends Omit<PortableRegistryOAuthOptions, 'store'> {
  /**
   * Where tokens and dynamic client registrations are kept: a file path, or a store of your own.
   * Default: `oauth-tokens.json` next to `cacheFile`, else in `toolwireCacheDir()`; mode 0600.
   */
  store?: string | OAuthTokenStore;
}

export interface CreateRegistryOptions extends Omit<PortableCreateRegistryOptions, 'oauth'> {
  /** A JSON file where the last known tools of every server are kept across restarts. */
  cacheFile?: string;
  /** OAuth for remote servers with `auth: { type: "oauth" }`: token store and the user step. */
  oauth?: RegistryOAuthOptions;
}

/**
 * The registry with Node's defaults: stdio servers run as child processes (`ProcessTransport`),
 * `cacheFile` is a JSON file, OAuth tokens live in a 0600 file and the user step is the loopback
 * handler. Call `start()` to connect.
 */
export function createRegistry(options: CreateRegistryOptions): Registry {
  const { cacheFile, oauth, ...rest } = options;
  const logger = options.logger ?? stderrLogger;
  const warn = (message: string) => logger.warn(message);
  const store =
    typeof oauth?.store === 'object'
      ? oauth.store
      : new FileOAuthTokenStore(
          oauth?.store ??
            join(cacheFile ? dirname(cacheFile) : toolwireCacheDir(), 'oauth-tokens.json'),
          { onProblem: warn },
        );
  return createPortableRegistry({
    stdioTransport: (transport) => new ProcessTransport(transport),
    ...(cacheFile ? { toolCache: new ToolCacheFile(cacheFile, warn) } : {}),
    ...rest,
    oauth: {
      ...oauth,
      store,
      authorize: oauth?.authorize ?? createLoopbackAuthorizationHandler({ print: warn }),
    },
  });
}
