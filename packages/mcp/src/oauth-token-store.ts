import type { StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';

/** What is kept per remote server: the registered client (dynamic registration) and the tokens. */
export interface OAuthCredentials {
  clientInformation?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
}

/**
 * Where OAuth credentials live, one entry per key (the registry uses `<server name> <server url>`,
 * so a server whose URL changes starts over). Synchronous so one read-modify-write is atomic in
 * this process.
 */
export interface OAuthTokenStore {
  get(key: string): OAuthCredentials | undefined;
  /** Replaces the entry; `undefined` fields are dropped, an empty entry is deleted. */
  set(key: string, credentials: OAuthCredentials): void;
  /** Where the credentials are kept, for messages (`undefined` for an in-memory store). */
  readonly location: string | undefined;
}

/** Keeps credentials in memory only: for tests and one-shot runs (conformance). */
export class MemoryOAuthTokenStore implements OAuthTokenStore {
  readonly location = undefined;
  private readonly entries = new Map<string, OAuthCredentials>();
  get(key: string): OAuthCredentials | undefined {
    const entry = this.entries.get(key);
    return entry ? structuredClone(entry) : undefined;
  }
  set(key: string, credentials: OAuthCredentials): void {
    const entry = compactCredentials(credentials);
    if (entry) this.entries.set(key, structuredClone(entry));
    else this.entries.delete(key);
  }
}

export function compactCredentials(credentials: OAuthCredentials): OAuthCredentials | undefined {
  const entry: OAuthCredentials = {};
  if (credentials.clientInformation) entry.clientInformation = credentials.clientInformation;
  if (credentials.tokens) entry.tokens = credentials.tokens;
  return entry.clientInformation || entry.tokens ? entry : undefined;
}
