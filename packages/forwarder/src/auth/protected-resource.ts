import type { AuthJwtConfig } from '@toolwire/config';

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** The path of `audience` without a trailing slash (`''` for an origin). */
function resourcePath(audience: string): string {
  const path = new URL(audience).pathname.replace(/\/$/, '');
  return path;
}

/**
 * Where the protected-resource metadata of `audience` is (RFC 9728 section 3.1: the well-known
 * segment inserted between the origin and the resource's path), as a 401's `resource_metadata`.
 */
export function resourceMetadataUrl(audience: string): string {
  return `${new URL(audience).origin}${WELL_KNOWN}${resourcePath(audience)}`;
}

/** The paths that answer the metadata: the bare one, `/mcp`'s and the audience's own. */
export function protectedResourcePaths(audience: string): Set<string> {
  return new Set([WELL_KNOWN, `${WELL_KNOWN}/mcp`, `${WELL_KNOWN}${resourcePath(audience)}`]);
}

/** The RFC 9728 metadata document of the gateway. */
export function protectedResourceMetadata(config: AuthJwtConfig): Record<string, unknown> {
  return {
    resource: config.audience,
    authorization_servers: [config.issuer],
    ...(config.scopes ? { scopes_supported: Object.keys(config.scopes) } : {}),
    bearer_methods_supported: ['header'],
    resource_name: 'Toolwire gateway',
  };
}
