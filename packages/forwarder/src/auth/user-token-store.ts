import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One user's tokens for one upstream (per-user OAuth). */
export interface UserTokens {
  accessToken: string;
  refreshToken?: string;
  /** When the access token expires (ms since the epoch). */
  expiresAt?: number;
  /** The client the tokens were issued to (a refresh needs it). */
  clientId: string;
  clientSecret?: string;
  tokenEndpoint: string;
}

/**
 * Where users' upstream tokens are kept, as opaque sealed strings by key (upstream and user): in
 * memory, in a file (`createFileUserTokenStore`) or in Redis for a fleet
 * (`createRedisUserTokenStore` of `@toolwire/forwarder/redis`). `sealUserTokens` encrypts what
 * goes in.
 */
export interface UserTokenStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, sealed: string): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export function createMemoryUserTokenStore(): UserTokenStore {
  const entries = new Map<string, string>();
  return {
    get: (key) => Promise.resolve(entries.get(key)),
    set: (key, sealed) => {
      entries.set(key, sealed);
      return Promise.resolve();
    },
    delete: (key) => {
      entries.delete(key);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

/** A JSON file of sealed entries (mode 0600), written whole through a rename. */
export function createFileUserTokenStore(file: string): UserTokenStore {
  const read = (): Record<string, string> => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
  };
  const write = (entries: Record<string, string>): void => {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(entries, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  };
  return {
    get: (key) => Promise.resolve(read()[key]),
    set: (key, sealed) => {
      write({ ...read(), [key]: sealed });
      return Promise.resolve();
    },
    delete: (key) => {
      const entries = read();
      delete entries[key];
      write(entries);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

/**
 * AES-256-GCM under a key derived from `secret`: `v1.<iv>.<tag>.<ciphertext>` (base64url). The
 * store key is bound in as additional data, so a sealed entry moved to another user's key does
 * not open.
 */
export class UserTokenSealer {
  private readonly key: Buffer;
  constructor(secret: string) {
    this.key = createHash('sha256').update(`toolwire user tokens\u0000${secret}`).digest();
  }

  seal(storeKey: string, tokens: UserTokens): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(storeKey));
    const body = Buffer.concat([cipher.update(JSON.stringify(tokens), 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), body]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The tokens, or `undefined` for an entry that does not open (another key, tampered). */
  open(storeKey: string, sealed: string): UserTokens | undefined {
    const [version, iv, tag, body] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || body === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(storeKey));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      const text = Buffer.concat([
        decipher.update(Buffer.from(body, 'base64url')),
        decipher.final(),
      ]).toString('utf8');
      return JSON.parse(text) as UserTokens;
    } catch {
      return undefined;
    }
  }
}
