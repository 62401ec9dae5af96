import { FairShareQueue, type FairShareOptions } from '@toolwire/schema';
import { InvalidRunOptionsError, SandboxBusyError, WaitAbortedError } from './errors.js';
import type { SandboxResource } from './errors.js';

export type {
  FairShareGrant,
  FairShareLimits,
  FairShareOptions,
  FairShareSnapshot,
} from '@toolwire/schema';

/**
 * The shared sandbox capacity (the runners of a pool, type-check workers) among owners: a
 * `FairShareQueue` of `@toolwire/schema` whose full queue refuses with `SandboxBusyError` (a
 * rate-limit error with `retryAfterMs`) and whose waits end with `WaitAbortedError`.
 */
export class FairShare extends FairShareQueue {
  constructor(options: { capacity: number; resource: SandboxResource; share?: FairShareOptions }) {
    super({
      capacity: options.capacity,
      ...(options.share ? { share: options.share } : {}),
      busy: (refusal) => new SandboxBusyError({ ...refusal, resource: options.resource }),
      aborted: (reason) => new WaitAbortedError({ reason }),
      check: (share) => checkShare(share),
    });
  }
}

function checkShare(share: FairShareOptions, path = 'fairShare'): void {
  if (typeof share !== 'object' || share === null) {
    throw new InvalidRunOptionsError({ path, message: 'expected an object' });
  }
  for (const key of ['maxActive', 'maxQueued'] as const) {
    const value = share[key];
    const minimum = key === 'maxActive' ? 1 : 0;
    if (value !== undefined && (!Number.isSafeInteger(value) || value < minimum)) {
      throw new InvalidRunOptionsError({
        path: `${path}.${key}`,
        message: `expected an integer >= ${minimum}, got ${JSON.stringify(value)}`,
      });
    }
  }
  for (const [owner, limits] of Object.entries(share.owners ?? {})) {
    if ('owners' in limits) {
      throw new InvalidRunOptionsError({
        path: `${path}.owners.${owner}.owners`,
        message: 'owners do not nest',
      });
    }
    checkShare(limits, `${path}.owners.${owner}`);
  }
}
