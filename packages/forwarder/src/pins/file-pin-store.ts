import {
  mkdirSync,
  readFileSync,
  renameSync,
  unwatchFile,
  watchFile,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { ToolwireError } from '@toolwire/schema';
import { emptyPins, type PinsDocument, type PinStore } from './pin-store.js';

/** The pins file could not be read or written. */
export class PinStoreError extends ToolwireError {
  readonly file: string;
  constructor(file: string, message: string, cause?: unknown) {
    super('pin_store_failed', { message, cause });
    this.name = 'PinStoreError';
    this.file = file;
  }
}

function readPins(file: string): PinsDocument {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyPins();
    throw new PinStoreError(file, `cannot read ${file}: ${(error as Error).message}`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new PinStoreError(file, `${file} is not JSON: ${(error as Error).message}`, error);
  }
  const document = parsed as Partial<PinsDocument>;
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw new PinStoreError(file, `${file} is not a pins document (an object)`);
  return { pins: { ...document.pins }, pending: { ...document.pending } };
}

/**
 * Pins in a JSON file (`toolwire.pins.json`), written whole through a temporary file and a rename
 * so that a reader never sees half of it. Changes by another process (the CLI's `tools approve`)
 * are noticed by polling the file's modification time.
 */
export function createFilePinStore(file: string, options: { pollMs?: number } = {}): PinStore {
  const listeners = new Set<() => void>();
  let watching = false;
  let ownWrite = '';
  const onFileChange = (): void => {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      // Removed: every tool counts as first seen again.
    }
    if (text === ownWrite) return;
    for (const listener of listeners) listener();
  };
  return {
    read: () => Promise.resolve(readPins(file)),
    update(change) {
      const document = readPins(file);
      change(document);
      const text = `${JSON.stringify(document, null, 2)}\n`;
      try {
        mkdirSync(dirname(file), { recursive: true });
        const temporary = `${file}.${process.pid}.tmp`;
        writeFileSync(temporary, text, { mode: 0o600 });
        renameSync(temporary, file);
      } catch (error) {
        throw new PinStoreError(file, `cannot write ${file}: ${(error as Error).message}`, error);
      }
      ownWrite = text;
      return Promise.resolve(document);
    },
    onChange(listener) {
      listeners.add(listener);
      if (!watching) {
        watching = true;
        watchFile(file, { interval: options.pollMs ?? 1_000, persistent: false }, onFileChange);
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && watching) {
          watching = false;
          unwatchFile(file, onFileChange);
        }
      };
    },
    close() {
      listeners.clear();
      if (watching) unwatchFile(file, onFileChange);
      watching = false;
      return Promise.resolve();
    },
  };
}
