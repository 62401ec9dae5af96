import type { ServerRequestAnswer, UpstreamMessage } from '../http-upstream.js';
import { INVALID_PARAMS, isRecord, JsonRpcFault } from '../json-rpc.js';
import type { SessionCodec } from '../session-codec.js';
import { admits, capabilityOf, type MirroredCapabilities } from './client-capabilities.js';
import { REQUEST_TIMEOUT, type ServerRequestEvent } from './server-requests.js';

/** Sends the upstream request of a round: with the round's signal and its way to ask. */
export type RoundSend = (options: {
  signal: AbortSignal;
  onRequest: (message: UpstreamMessage) => Promise<ServerRequestAnswer>;
}) => Promise<unknown>;

interface Asked {
  method: string;
  params: Record<string, unknown> | undefined;
  started: number;
  sent: boolean;
  answer(answer: ServerRequestAnswer): void;
  timer: NodeJS.Timeout;
}

interface Round {
  id: string;
  owner: string;
  client: string;
  server: string;
  capabilities: MirroredCapabilities;
  asked: Map<string, Asked>;
  controller: AbortController;
  /** Settles with the upstream's answer (a result, or the error it threw). */
  outcome: Promise<{ result: unknown } | { error: unknown }>;
  /** Wakes whoever waits when the upstream asks something. */
  wake: () => void;
  nextKey: number;
}

const PURPOSE = 'input-required';

/**
 * A 2026-07-28 client of a 2025-era upstream: the upstream asks (sampling, elicitation, roots) in
 * the middle of a call, the client can only be asked through an `input_required` result. A round
 * keeps the upstream call open across the client's retries: what the upstream asks becomes
 * `inputRequests`, the retry's `inputResponses` go back upstream as answers, and the retry gets
 * the upstream's next question or its result. `requestState` is sealed and names the round and its
 * owner (another token's retry is refused). Rounds live in the process that holds the upstream
 * call; a client that does not come back within the timeout: the upstream is told.
 */
export class InputRounds {
  private readonly rounds = new Map<string, Round>();
  private sequence = 0;

  constructor(
    private readonly options: {
      codec: SessionCodec;
      timeoutMs: number;
      onEvent: (event: ServerRequestEvent) => void;
    },
  ) {}

  /**
   * A call, or the retry of one (`extra` has our `requestState`): resolves with the upstream's
   * result or with an `input_required` result for the client.
   */
  async call(
    who: { owner: string; client: string; server: string; capabilities: MirroredCapabilities },
    extra: Record<string, unknown> | undefined,
    send: RoundSend,
  ): Promise<unknown> {
    const state = extra?.requestState;
    let round: Round;
    if (state !== undefined) {
      const payload = this.options.codec.open(PURPOSE, state);
      const found = typeof payload?.r === 'string' ? this.rounds.get(payload.r) : undefined;
      if (!payload || payload.o !== who.owner || !found)
        throw new JsonRpcFault(
          INVALID_PARAMS,
          'requestState: not a state of this server for this client (expired, altered, or from another instance)',
        );
      round = found;
      this.answer(round, extra?.inputResponses);
    } else round = this.start(who, send);
    return this.next(round);
  }

  /** Asks the owner's latest open round (an upstream's request sent outside any call). */
  askOwner(owner: string, message: UpstreamMessage): Promise<ServerRequestAnswer> {
    const open = [...this.rounds.values()].filter((round) => round.owner === owner);
    const round = open[open.length - 1];
    if (!round)
      return Promise.resolve({
        error: {
          code: -32603,
          message: `${message.method}: no request of the client is open to carry it`,
        },
      });
    return this.ask(round, message);
  }

  private start(
    who: { owner: string; client: string; server: string; capabilities: MirroredCapabilities },
    send: RoundSend,
  ): Round {
    const controller = new AbortController();
    const round: Round = {
      id: `${process.pid}-${++this.sequence}-${Math.random().toString(36).slice(2, 10)}`,
      ...who,
      asked: new Map(),
      controller,
      outcome: undefined as never,
      wake: () => {},
      nextKey: 0,
    };
    round.outcome = send({ signal: controller.signal, onRequest: (m) => this.ask(round, m) }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    this.rounds.set(round.id, round);
    void round.outcome.then(() => {
      round.wake();
      // An answer no retry came for is dropped after the time a retry had.
      setTimeout(() => this.rounds.delete(round.id), this.options.timeoutMs).unref?.();
    });
    return round;
  }

  private ask(round: Round, message: UpstreamMessage): Promise<ServerRequestAnswer> {
    const method = message.method!;
    const started = performance.now();
    const event = (outcome: ServerRequestEvent['outcome']): void =>
      this.options.onEvent({
        server: round.server,
        method,
        outcome,
        client: round.client,
        durationMs: performance.now() - started,
      });
    if (!admits(round.capabilities, method, message.params)) {
      event('unsupported');
      return Promise.resolve({
        error: {
          code: -32601,
          message: `${method}: the client did not declare the ${capabilityOf(method)} capability`,
        },
      });
    }
    return new Promise((resolve) => {
      const key = `${method.replace(/\W/g, '_')}_${++round.nextKey}`;
      const timer = setTimeout(() => {
        round.asked.delete(key);
        event('timeout');
        resolve({
          error: {
            code: REQUEST_TIMEOUT,
            message: `Request timed out: the client did not answer ${method} within ${this.options.timeoutMs} ms`,
          },
        });
        if (round.asked.size === 0) this.dropLater(round);
      }, this.options.timeoutMs);
      timer.unref?.();
      round.asked.set(key, {
        method,
        params: message.params,
        started,
        sent: false,
        timer,
        answer: (answer) => {
          clearTimeout(timer);
          event('error' in answer ? 'error' : 'answered');
          resolve(answer);
        },
      });
      round.wake();
    });
  }

  private answer(round: Round, responses: unknown): void {
    if (!isRecord(responses)) return;
    for (const [key, value] of Object.entries(responses)) {
      const asked = round.asked.get(key);
      // Keys never issued, or answered already, are ignored (the spec's SHOULD).
      if (!asked || !isRecord(value)) continue;
      round.asked.delete(key);
      asked.answer({ result: value });
    }
  }

  /** Waits until the upstream answers or asks; the client gets what happened. */
  private async next(round: Round): Promise<unknown> {
    for (;;) {
      const settled = await Promise.race([
        round.outcome,
        new Promise<undefined>((resolve) => {
          round.wake = () => resolve(undefined);
          if (round.asked.size > 0) resolve(undefined);
        }),
      ]);
      if (settled) {
        this.rounds.delete(round.id);
        if ('error' in settled) throw settled.error;
        return settled.result;
      }
      if (round.asked.size === 0) continue;
      // Questions asked together go out together.
      await new Promise((resolve) => setImmediate(resolve));
      const inputRequests: Record<string, unknown> = {};
      for (const [key, asked] of round.asked) {
        asked.sent = true;
        inputRequests[key] = {
          method: asked.method,
          ...(asked.params ? { params: asked.params } : {}),
        };
      }
      return {
        resultType: 'input_required',
        inputRequests,
        requestState: this.options.codec.seal(
          PURPOSE,
          { r: round.id, o: round.owner },
          this.options.timeoutMs,
        ),
      };
    }
  }

  /** A round whose client went away: the upstream call is given up once nothing is pending. */
  private dropLater(round: Round): void {
    setTimeout(() => {
      if (round.asked.size === 0 && this.rounds.get(round.id) === round) {
        round.controller.abort();
        this.rounds.delete(round.id);
      }
    }, 1000).unref?.();
  }

  close(): void {
    for (const round of this.rounds.values()) {
      for (const asked of round.asked.values()) {
        clearTimeout(asked.timer);
        asked.answer({ error: { code: -32603, message: 'The gateway is shutting down' } });
      }
      round.controller.abort();
    }
    this.rounds.clear();
  }
}
