import { connect } from 'node:net';
import { errorMessage } from '@toolwire/schema';
import { ProviderUnreachableError, type ResolvedProvider } from './provider.js';

/** How long the interactive chat's start-up check waits, for the connection and for an answer. */
export const PROVIDER_CHECK_MS = 5_000;

/**
 * Before the first prompt: is anything at the provider's address? Two steps, so the user learns
 * which one failed. A refused or unanswered connection (nothing listens, wrong host or port) is an
 * error: nothing would ever answer. A connection that is accepted but gets no HTTP answer within
 * `timeoutMs` is a slow server (a local one loading its model): `'slow'`, and the chat goes on.
 * Any HTTP answer, even 401 or 404, means the address is right.
 */
export async function checkProvider(
  provider: Pick<ResolvedProvider, 'provider' | 'baseUrl'>,
  timeoutMs = PROVIDER_CHECK_MS,
): Promise<'answered' | 'slow'> {
  const where = `${provider.provider} at ${provider.baseUrl}`;
  const url = new URL(provider.baseUrl);
  try {
    await openConnection(url, timeoutMs);
  } catch (error) {
    throw new ProviderUnreachableError(`cannot connect to ${where}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  try {
    const response = await fetch(provider.baseUrl, {
      method: 'HEAD',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return 'answered';
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') return 'slow';
    const reason = errorMessage((error as { cause?: unknown }).cause ?? error);
    throw new ProviderUnreachableError(`${where} accepted the connection but failed: ${reason}`, {
      cause: error,
    });
  }
}

/** Opens (and closes) one TCP connection to the URL's host and port. */
function openConnection(url: URL, timeoutMs: number): Promise<void> {
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(
          `no answer to the connection in ${Math.round(timeoutMs / 1000)} s (${host}:${port})`,
        ),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
