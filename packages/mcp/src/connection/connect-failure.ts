import { SdkHttpError } from '@modelcontextprotocol/client';
import { TimeoutError, errorMessage } from '@toolwire/schema';
import type { TransportKind } from '@toolwire/config';
import { describeOAuthFailure, isOAuthFailure, type OAuthSession } from '../oauth-session.js';
import type { StdioTransport } from '../registry-types.js';

/** What a failed connect is reported as (a server's status reason and the log line). */
export function describeConnectFailure(
  error: unknown,
  context: {
    signal: AbortSignal;
    transportKind: TransportKind;
    command: string | undefined;
    oauth: OAuthSession | undefined;
    /** The stdio process of the attempt, for its exit status and stderr. */
    child: StdioTransport | undefined;
    redact: (text: string) => string;
  },
): string {
  const { oauth, signal, child } = context;
  if (
    oauth &&
    !signal.aborted &&
    (isOAuthFailure(error) ||
      (error instanceof SdkHttpError && [401, 403].includes(error.data?.status ?? 0)))
  )
    return describeOAuthFailure(error, oauth);
  let reason =
    signal.aborted && TimeoutError.isInstance(signal.reason)
      ? (signal.reason as Error).message
      : errorMessage(error);
  if ((error as NodeJS.ErrnoException)?.code === 'ENOENT' && context.transportKind === 'stdio') {
    return `command not found: ${context.command}`;
  }
  if (context.transportKind === 'stdio' && child) {
    if (child.exitStatus) reason = `${exitText(child.exitStatus)} during startup: ${reason}`;
    const tail = lastLine(context.redact(child.stderrText));
    if (tail && !reason.includes(tail)) reason += ` (stderr: ${tail})`;
  }
  return reason;
}

/** Why a stdio server that was running went down: its exit and the last line of its stderr. */
export function describeExit(child: StdioTransport, redact: (text: string) => string): string {
  const tail = lastLine(redact(child.stderrText));
  return `${exitText(child.exitStatus!)}${tail ? `: ${tail}` : ''}`;
}

function exitText(status: NonNullable<StdioTransport['exitStatus']>): string {
  const { code, signal } = status;
  return `the server process exited (${signal ? `signal ${signal}` : `code ${code}`})`;
}

function lastLine(text: string | undefined): string | undefined {
  const lines = (text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.at(-1);
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
