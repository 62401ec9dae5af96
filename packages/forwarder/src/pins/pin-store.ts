/** A tool definition as it was pinned (first seen or approved). */
export interface ToolPin {
  hash: string;
  /** The description pinned, to show beside a changed one. */
  description?: string;
  /** ISO time. */
  pinnedAt: string;
  /** Who approved it (`first-seen` when it was recorded as first seen). */
  by: string;
}

/** A definition that differs from its pin, waiting for an admin. */
export interface PendingPin {
  hash: string;
  description?: string;
  /** ISO time it was first seen. */
  seenAt: string;
}

/** Every pin and pending change, by namespaced tool name (`<server><separator><tool>`). */
export interface PinsDocument {
  pins: Record<string, ToolPin>;
  pending: Record<string, PendingPin>;
}

/**
 * Where pins are kept: a file beside the config (`createFilePinStore`), Redis for a fleet
 * (`createRedisPinStore` of `@toolwire/forwarder/redis`), or memory.
 */
export interface PinStore {
  /** The whole document. */
  read(): Promise<PinsDocument>;
  /** Changes the document (read, `change`, write) and resolves with the new one. */
  update(change: (document: PinsDocument) => void): Promise<PinsDocument>;
  /** Told when another process changed the document (an approval by the CLI, another instance). */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

export function emptyPins(): PinsDocument {
  return { pins: {}, pending: {} };
}

/** Pins in this process only (lost on restart). */
export function createMemoryPinStore(): PinStore {
  let document = emptyPins();
  return {
    read: () => Promise.resolve(structuredClone(document)),
    update(change) {
      const next = structuredClone(document);
      change(next);
      document = next;
      return Promise.resolve(structuredClone(document));
    },
    onChange: () => () => {},
    close: () => Promise.resolve(),
  };
}
