import { dirname, join, resolve } from 'node:path';
import { createFileUserTokenStore, type UserTokenStore } from '@toolwire/forwarder';
import type { ToolwireConfig } from '@toolwire/mcp';
import { toolwireCacheDir } from './default-config.js';

/**
 * Where users' upstream tokens (per-user OAuth) are kept: Redis with `redis` (a fleet shares
 * them), else `auth.userTokens.file` (relative to the config file's directory), else
 * `toolwire.user-tokens.json` beside the config file or in the cache directory. Entries are
 * sealed with `auth.userTokens.encryptionKey` before they get here.
 */
export async function userTokenStoreFor(
  config: ToolwireConfig,
  configFile: string | undefined,
): Promise<UserTokenStore> {
  if (config.redis) {
    const { createRedisUserTokenStore } = await import('@toolwire/forwarder/redis');
    return createRedisUserTokenStore(config.redis);
  }
  const base = configFile ? dirname(configFile) : toolwireCacheDir();
  const file = config.auth?.userTokens?.file;
  return createFileUserTokenStore(
    file ? resolve(base, file) : join(base, 'toolwire.user-tokens.json'),
  );
}
