import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  compactCredentials,
  type OAuthCredentials,
  type OAuthTokenStore,
} from './oauth-token-store.js';

interface TokenFileContent {
  version: 1;
  servers: Record<string, OAuthCredentials>;
}

/**
 * Keeps credentials in a JSON file readable only by its owner (mode 0600, folder 0700 when
 * created). Written to a temporary file and renamed, so a crash never leaves half a file. A file
 * that is unreadable or not ours is reported through `onProblem` and treated as empty.
 */
export class FileOAuthTokenStore implements OAuthTokenStore {
  readonly location: string;
  private readonly onProblem: (message: string) => void;

  constructor(path: string, options: { onProblem?: (message: string) => void } = {}) {
    this.location = path;
    this.onProblem = options.onProblem ?? (() => {});
  }

  get(key: string): OAuthCredentials | undefined {
    const entry = this.read().servers[key];
    return entry ? structuredClone(entry) : undefined;
  }

  set(key: string, credentials: OAuthCredentials): void {
    const content = this.read();
    const entry = compactCredentials(credentials);
    if (entry) content.servers[key] = entry;
    else delete content.servers[key];
    mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
    const temporary = `${this.location}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
    // The mode given to writeFileSync only applies to a new file (and goes through the umask).
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.location);
  }

  private read(): TokenFileContent {
    let text: string;
    try {
      text = readFileSync(this.location, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        this.onProblem(
          `OAuth token file ${this.location} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); starting without stored tokens`,
        );
      return { version: 1, servers: {} };
    }
    try {
      const parsed = JSON.parse(text) as Partial<TokenFileContent>;
      if (
        parsed.version === 1 &&
        parsed.servers !== null &&
        typeof parsed.servers === 'object' &&
        !Array.isArray(parsed.servers)
      )
        return { version: 1, servers: parsed.servers };
      this.onProblem(
        `OAuth token file ${this.location} is not a Toolwire token file (version 1); it will be replaced`,
      );
    } catch (error) {
      this.onProblem(
        `OAuth token file ${this.location} is not valid JSON (${(error as Error).message}); it will be replaced`,
      );
    }
    return { version: 1, servers: {} };
  }
}
