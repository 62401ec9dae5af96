import { isRecord } from '../json-rpc.js';

/**
 * The client capabilities the gateway carries to an upstream: the ones whose requests it bridges
 * (`sampling/createMessage`, `elicitation/create` in form and URL mode, `roots/list`). Others
 * (`tasks.requests.*`: client-side tasks; `experimental`) are not declared upstream, because the
 * gateway does not answer them for the client.
 */
export type MirroredCapabilities = {
  sampling?: Record<string, unknown>;
  elicitation?: Record<string, unknown>;
  roots?: Record<string, unknown>;
};

/** The capabilities of `raw` (a client's `initialize` or `_meta` capabilities) the upstream sees. */
export function mirroredCapabilities(raw: unknown): MirroredCapabilities {
  if (!isRecord(raw)) return {};
  const out: MirroredCapabilities = {};
  if (isRecord(raw.sampling)) out.sampling = plain(raw.sampling);
  if (isRecord(raw.elicitation)) out.elicitation = plain(raw.elicitation);
  if (isRecord(raw.roots)) out.roots = plain(raw.roots);
  return out;
}

/** A JSON copy with sorted keys (so equal capabilities give one key), nested objects kept. */
function plain(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = value[key];
    if (isRecord(item)) out[key] = plain(item);
    else if (item === null || ['string', 'number', 'boolean'].includes(typeof item))
      out[key] = item;
  }
  return out;
}

/** One string per capability set ('' for none): the key of upstream sessions and listings. */
export function capabilityKey(capabilities: MirroredCapabilities): string {
  if (!capabilities.sampling && !capabilities.elicitation && !capabilities.roots) return '';
  return JSON.stringify(capabilities);
}

/** Which server-to-client request a capability set admits (form elicitation is the default mode). */
export function admits(
  capabilities: MirroredCapabilities,
  method: string,
  params: Record<string, unknown> | undefined,
): boolean {
  switch (method) {
    case 'sampling/createMessage':
      return capabilities.sampling !== undefined;
    case 'elicitation/create': {
      const elicitation = capabilities.elicitation;
      if (!elicitation) return false;
      const mode = params?.mode === 'url' ? 'url' : 'form';
      // `elicitation: {}` (the 2025-06-18 spelling) means form mode only.
      if (mode === 'url') return elicitation.url !== undefined;
      return elicitation.form !== undefined || elicitation.url === undefined;
    }
    case 'roots/list':
      return capabilities.roots !== undefined;
    case 'ping':
      return true;
    default:
      return false;
  }
}

/** The capability a server-to-client request needs, for the error that names it. */
export function capabilityOf(method: string): string {
  switch (method) {
    case 'sampling/createMessage':
      return 'sampling';
    case 'elicitation/create':
      return 'elicitation';
    case 'roots/list':
      return 'roots';
    default:
      return method;
  }
}

/** Every capability the gateway bridges: what its own listing connection declares upstream. */
export const ALL_BRIDGED_CAPABILITIES: MirroredCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};
