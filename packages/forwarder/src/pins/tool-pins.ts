import type { SourceTool } from '../tool-source.js';
import { descriptionFindings, type DescriptionFinding } from './description-findings.js';
import { emptyPins, type PinsDocument, type PinStore, type ToolPin } from './pin-store.js';
import { toolDefinitionHash } from './tool-definition.js';

/** `policy.pinning.mode`: hold changed tools, serve them with a warning, or keep no pins. */
export type PinningMode = 'hold' | 'warn' | 'off';

/**
 * A tool's standing against its pin: `new` (first seen: pinned now), `pinned` (unchanged),
 * `changed` (differs, served with a warning), `held` (differs, neither listed nor callable).
 */
export type PinStatus = 'new' | 'pinned' | 'changed' | 'held';

export interface PinReview {
  status: PinStatus;
  hash: string;
  /** The pin it was compared with (absent for a tool seen for the first time). */
  pinned?: ToolPin;
  findings: DescriptionFinding[];
}

/** What the gateway tells its log of pins. */
export type PinEvent =
  | { kind: 'first-seen'; name: string; hash: string; findings: DescriptionFinding[] }
  | {
      kind: 'changed';
      name: string;
      hash: string;
      pinned: string;
      held: boolean;
      findings: DescriptionFinding[];
    }
  | { kind: 'approved'; name: string; hash: string; by: string }
  | { kind: 'store-failed'; error: string };

export interface ToolPinsOptions {
  mode: PinningMode;
  store: PinStore;
  onEvent?: (event: PinEvent) => void;
}

/** The pin, pending change and findings of one tool, for an admin. */
export interface PinEntry {
  name: string;
  pinned?: ToolPin;
  pending?: { hash: string; description?: string; seenAt: string };
}

/**
 * Pinned tool definitions (a defence against a "rug pull": a tool's definition changing after it
 * was trusted). Each upstream tool's definition hash is recorded when first seen; a tool whose
 * definition then differs is held back (mode `hold`) or served flagged (mode `warn`) until an admin
 * approves the new definition. Reviews are synchronous against a snapshot of the store, which is
 * written in the background and re-read when another process changes it.
 */
export class ToolPins {
  readonly mode: PinningMode;
  private document: PinsDocument = emptyPins();
  private loaded = false;
  private readonly listeners = new Set<(change: { initial: boolean }) => void>();
  private readonly unsubscribe: () => void;
  private writes: Promise<unknown> = Promise.resolve();
  private readonly reported = new Map<string, string>();

  constructor(private readonly options: ToolPinsOptions) {
    this.mode = options.mode;
    this.unsubscribe =
      options.mode === 'off' ? () => {} : options.store.onChange(() => void this.reload());
  }

  /** Reads the store; until then `hold` holds every upstream tool. */
  async ready(): Promise<void> {
    if (this.mode === 'off' || this.loaded) return;
    await this.reload();
  }

  private async reload(): Promise<void> {
    try {
      this.document = await this.options.store.read();
      const initial = !this.loaded;
      this.loaded = true;
      for (const listener of this.listeners) listener({ initial });
    } catch (error) {
      this.options.onEvent?.({ kind: 'store-failed', error: (error as Error).message });
    }
  }

  /**
   * Told when pins change (an approval here or elsewhere; `initial`: the store was first read): the
   * tool list is made again.
   */
  onChange(listener: (change: { initial: boolean }) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The standing of an upstream tool under its namespaced `name`; `otherTools` are the names of
   * other servers' tools (a description naming one is flagged).
   */
  review(name: string, tool: SourceTool, otherTools: () => Iterable<string>): PinReview {
    const hash = toolDefinitionHash(tool);
    const findings = descriptionFindings(tool.description, otherTools());
    if (this.mode === 'off') return { status: 'pinned', hash, findings };
    if (!this.loaded) return { status: this.mode === 'hold' ? 'held' : 'pinned', hash, findings };
    const pinned = this.document.pins[name];
    if (!pinned) {
      const pin: ToolPin = {
        hash,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        pinnedAt: new Date().toISOString(),
        by: 'first-seen',
      };
      this.document.pins[name] = pin;
      this.write((document) => {
        document.pins[name] ??= pin;
      });
      this.options.onEvent?.({ kind: 'first-seen', name, hash, findings });
      return { status: 'new', hash, pinned: pin, findings };
    }
    if (pinned.hash === hash) return { status: 'pinned', hash, pinned, findings };
    const held = this.mode === 'hold';
    if (this.document.pending[name]?.hash !== hash) {
      const pending = {
        hash,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        seenAt: new Date().toISOString(),
      };
      this.document.pending[name] = pending;
      this.write((document) => {
        document.pending[name] = pending;
      });
    }
    if (this.reported.get(name) !== hash) {
      this.reported.set(name, hash);
      this.options.onEvent?.({ kind: 'changed', name, hash, pinned: pinned.hash, held, findings });
    }
    return { status: held ? 'held' : 'changed', hash, pinned, findings };
  }

  /**
   * Pins the pending definition of `name` (or `hash`, when given, which must be the pending one):
   * the tool is served again. Resolves false when nothing is pending for it.
   */
  async approve(name: string, by: string, hash?: string): Promise<boolean> {
    let approved: string | undefined;
    this.document = await this.options.store.update((document) => {
      const pending = document.pending[name];
      if (!pending || (hash !== undefined && pending.hash !== hash)) return;
      document.pins[name] = {
        hash: pending.hash,
        ...(pending.description !== undefined ? { description: pending.description } : {}),
        pinnedAt: new Date().toISOString(),
        by,
      };
      delete document.pending[name];
      approved = pending.hash;
    });
    if (approved === undefined) return false;
    this.options.onEvent?.({ kind: 'approved', name, hash: approved, by });
    for (const listener of this.listeners) listener({ initial: false });
    return true;
  }

  /** Every pin and pending change. */
  entries(): PinEntry[] {
    const names = new Set([
      ...Object.keys(this.document.pins),
      ...Object.keys(this.document.pending),
    ]);
    return [...names].sort().map((name) => ({
      name,
      ...(this.document.pins[name] ? { pinned: this.document.pins[name] } : {}),
      ...(this.document.pending[name] ? { pending: this.document.pending[name] } : {}),
    }));
  }

  /** Waits for the writes made so far (tests, shutdown). */
  flush(): Promise<void> {
    return this.writes.then(() => {});
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.flush();
    await this.options.store.close();
  }

  private write(change: (document: PinsDocument) => void): void {
    this.writes = this.writes
      .then(() => this.options.store.update(change))
      .catch((error: unknown) =>
        this.options.onEvent?.({ kind: 'store-failed', error: (error as Error).message }),
      );
  }
}
