import { createHash } from 'node:crypto';
import type { HttpUpstream, UpstreamMessage } from '../http-upstream.js';
import { isRecord } from '../json-rpc.js';
import { SESSION_MAX_AGE_MS } from '../session-codec.js';
import type { RecordStore } from '../session-store.js';
import { capabilityKey, type MirroredCapabilities } from './client-capabilities.js';

/** Whose upstream sessions these are: a 2025-era downstream session, or a 2026-07-28 pool. */
export interface UpstreamOwner {
  /** The downstream session id, or `m:<token fingerprint>:<capability key>` for stateless clients. */
  key: string;
  capabilities: MirroredCapabilities;
}

/** A message an upstream sent on one of our sessions' GET streams, with whose session it is. */
export interface UnrelatedMessage {
  server: string;
  session: string;
  owner: string;
  message: UpstreamMessage;
}

interface OpenSession {
  session: string;
  http: HttpUpstream;
  listener?: AbortController;
}

const digest = (text: string): string => createHash('sha256').update(text).digest('base64url');

/**
 * The upstream sessions the gateway opens on behalf of its clients: an upstream sees the
 * capabilities of the client it works for, keeps that client's state (roots, log level,
 * subscriptions, tasks) apart from every other client's, and sends its server-to-client requests
 * where they can be routed back to that client. One 2025-era upstream session per downstream
 * session (or per token and capability set for stateless 2026-07-28 clients) and upstream,
 * opened on first need; its id is kept in the shared records so every instance of a fleet uses the
 * same one. A 2026-07-28 upstream needs none: capabilities travel with each request.
 */
export class UpstreamSessions {
  private readonly open = new Map<string, Promise<OpenSession | undefined>>();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly listings = new Map<string, Promise<Set<string>>>();
  private closed = false;

  constructor(
    private readonly records: RecordStore,
    private readonly onUnrelated: (message: UnrelatedMessage) => void,
  ) {}

  /** The upstream session `owner`'s calls to `server` use (`undefined`: a 2026-07-28 upstream). */
  async sessionFor(
    server: string,
    http: HttpUpstream,
    owner: UpstreamOwner,
  ): Promise<string | undefined> {
    const key = `${server}\u0000${owner.key}`;
    let opening = this.open.get(key);
    if (!opening) {
      opening = this.openFor(server, http, owner, key);
      this.open.set(key, opening);
      opening.catch(() => this.open.delete(key));
    }
    return (await opening)?.session;
  }

  private async openFor(
    server: string,
    http: HttpUpstream,
    owner: UpstreamOwner,
    key: string,
  ): Promise<OpenSession | undefined> {
    if (!http.protocolVersion) await http.connect();
    if (http.modern) return undefined;
    const recordKey = `upstream-session:${digest(key)}`;
    const known = await this.records.getRecord(recordKey).catch(() => undefined);
    let session = known;
    if (session === undefined) {
      const opened = await http.openSession(owner.capabilities);
      session = opened!.session;
      await this.records.putRecord(recordKey, session, SESSION_MAX_AGE_MS).catch(() => undefined);
    }
    const entry: OpenSession = { session, http };
    let owned = this.byOwner.get(owner.key);
    if (!owned) this.byOwner.set(owner.key, (owned = new Set()));
    owned.add(key);
    this.startListening(server, owner.key, entry);
    return entry;
  }

  /**
   * The upstream forgot a session (it restarted): the next call opens a new one. `session` is the
   * one that failed, so a newer one opened meanwhile is kept.
   */
  async forget(server: string, owner: UpstreamOwner, session: string): Promise<void> {
    const key = `${server}\u0000${owner.key}`;
    const current = await this.open.get(key)?.catch(() => undefined);
    if (current && current.session !== session) return;
    current?.listener?.abort();
    this.open.delete(key);
    await this.records.deleteRecord(`upstream-session:${digest(key)}`).catch(() => undefined);
  }

  /**
   * Keeps the session's GET stream open while the session is in use, for what the upstream sends
   * outside a request (a `roots/list` at start, log messages, resource updates, task status).
   */
  private startListening(server: string, owner: string, entry: OpenSession): void {
    const controller = new AbortController();
    entry.listener = controller;
    void (async () => {
      for (let failures = 0; failures < 3 && !controller.signal.aborted && !this.closed;) {
        try {
          await entry.http.listen(
            entry.session,
            (message) => this.onUnrelated({ server, session: entry.session, owner, message }),
            controller.signal,
          );
          failures = 0;
        } catch {
          failures++;
        }
        if (!controller.signal.aborted)
          await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** failures).unref());
      }
    })();
  }

  /** The upstream sessions an owner has open on this instance: (server, session) pairs. */
  async sessionsOf(
    owner: string,
  ): Promise<Array<{ server: string; session: string; http: HttpUpstream }>> {
    const keys = [...(this.byOwner.get(owner) ?? [])];
    const entries = await Promise.all(
      keys.map((key) => this.open.get(key)?.catch(() => undefined)),
    );
    return entries.flatMap((entry, i) =>
      entry
        ? [{ server: keys[i]!.split('\u0000')[0]!, session: entry.session, http: entry.http }]
        : [],
    );
  }

  /**
   * The names of the tools `server` lists to a client with these capabilities (the upstream may
   * offer some only to clients that can answer sampling, elicitation or roots). Listed once per
   * capability set, in that client's own session, until the upstream's tool list changes.
   */
  toolNames(
    server: string,
    http: HttpUpstream,
    owner: UpstreamOwner | undefined,
  ): Promise<Set<string>> {
    const key = `${server}\u0000${owner ? capabilityKey(owner.capabilities) : ''}`;
    let listing = this.listings.get(key);
    if (!listing) {
      listing = (async () => {
        const session = owner ? await this.sessionFor(server, http, owner) : undefined;
        const names = new Set<string>();
        let cursor: unknown;
        for (let page = 0; page < 64; page++) {
          const result = await http.request('tools/list', cursor ? { cursor } : {}, {
            timeoutMs: 10_000,
            ...(session ? { session } : {}),
            ...(owner ? { capabilities: owner.capabilities } : {}),
          });
          if (!isRecord(result) || !Array.isArray(result.tools)) break;
          for (const tool of result.tools)
            if (isRecord(tool) && typeof tool.name === 'string') names.add(tool.name);
          cursor = result.nextCursor;
          if (typeof cursor !== 'string') break;
        }
        return names;
      })();
      this.listings.set(key, listing);
      listing.catch(() => this.listings.delete(key));
    }
    return listing;
  }

  /** The upstream's tools changed: listings per capability set are made again. */
  toolsChanged(server: string): void {
    for (const key of this.listings.keys())
      if (key.startsWith(`${server}\u0000`)) this.listings.delete(key);
  }

  /** A downstream session ended: its upstream sessions end too. */
  async end(owner: string): Promise<void> {
    const keys = [...(this.byOwner.get(owner) ?? [])];
    this.byOwner.delete(owner);
    await Promise.all(
      keys.map(async (key) => {
        const entry = await this.open.get(key)?.catch(() => undefined);
        this.open.delete(key);
        await this.records.deleteRecord(`upstream-session:${digest(key)}`).catch(() => undefined);
        if (!entry) return;
        entry.listener?.abort();
        await entry.http.endSession(entry.session);
      }),
    );
  }

  close(): void {
    this.closed = true;
    for (const opening of this.open.values())
      void opening.then((entry) => entry?.listener?.abort()).catch(() => undefined);
    this.open.clear();
  }
}
