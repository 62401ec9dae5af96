import type { AssistantMessage, Message, ToolCall, ToolResult } from '@toolwire/schema';
import type { SharedState } from './shared-state.js';

/** How long the gateway keeps a response, its items and a chat's server-side calls. */
export const RESPONSE_TTL_MS = 24 * 60 * 60 * 1000;

/** One output item of a response, as `item_reference` brings it back into a conversation. */
export type StoredItem =
  | { kind: 'text'; text: string }
  | { kind: 'client-call'; call: ToolCall }
  | { kind: 'server-call'; call: ToolCall; result: ToolResult };

/**
 * What Chat Completions cannot carry back: when an answer stops at the client's tool calls, the
 * calls the gateway ran itself on the way (earlier steps, and the same step's server calls).
 * Found again by the first client call's id when the client sends the conversation back.
 */
export interface StoredExchange {
  /** The messages the run added before the step that called the client's tools. */
  before: Message[];
  /** That step's assistant message, with every call it made (the gateway's and the client's). */
  assistant: AssistantMessage;
  /** The results of the gateway's own calls of that step. */
  serverResults: ToolResult[];
}

interface Owned<T> {
  owner: string;
  value: T;
}

/**
 * Responses (for `previous_response_id`), their output items (for `item_reference`) and chat
 * exchanges, kept in the gateway's shared state (memory, or Redis in a fleet: any instance
 * continues a conversation another one answered). Each belongs to the client that made it: another
 * token gets "not found", as for an id that never existed.
 */
export interface ResponseStore {
  saveResponse(id: string, messages: Message[]): Promise<void>;
  loadResponse(id: string): Promise<Message[] | undefined>;
  saveItems(items: ReadonlyArray<[id: string, item: StoredItem]>): Promise<void>;
  loadItem(id: string): Promise<StoredItem | undefined>;
  saveExchange(callId: string, exchange: StoredExchange): Promise<void>;
  loadExchange(callId: string): Promise<StoredExchange | undefined>;
}

export function responseStore(shared: SharedState, owner: string): ResponseStore {
  const put = <T>(key: string, value: T) =>
    shared.putValue(`responses:${key}`, JSON.stringify({ owner, value }), RESPONSE_TTL_MS);
  const get = async <T>(key: string): Promise<T | undefined> => {
    const text = await shared.getValue(`responses:${key}`);
    if (text === undefined) return undefined;
    const stored = JSON.parse(text) as Owned<T>;
    return stored.owner === owner ? stored.value : undefined;
  };
  return {
    saveResponse: (id, messages) => put(`response:${id}`, messages),
    loadResponse: (id) => get<Message[]>(`response:${id}`),
    saveItems: async (items) => {
      await Promise.all(items.map(([id, item]) => put(`item:${id}`, item)));
    },
    loadItem: (id) => get<StoredItem>(`item:${id}`),
    // Call ids come from the model and may repeat across clients: the owner is part of the key.
    saveExchange: (callId, exchange) => put(`exchange:${owner}:${callId}`, exchange),
    loadExchange: (callId) => get<StoredExchange>(`exchange:${owner}:${callId}`),
  };
}
