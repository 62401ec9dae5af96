// Real memory of the host, read from /proc (Linux): the resident set of this process and of every
// process it started (the isolated-vm runners), never the engine's own counter. Peaks come from
// VmHWM, which writing "5" to /proc/<pid>/clear_refs resets to the current resident size.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

const MiB = 1024 * 1024;

/** Whether this host exposes what the measurements need. */
export const hostMemoryMeasurable = ((): boolean => {
  try {
    readFileSync('/proc/self/status', 'utf8');
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Whether host-memory tests run: where the host can measure, and always in CI (`CI` set), where a
 * host that cannot measure must fail them rather than pass by skipping.
 */
export const runHostMemoryTests = hostMemoryMeasurable || Boolean(process.env.CI);

/** Appended to the names of host-memory tests, so a skip says why. */
export const hostMemorySkipNote = runHostMemoryTests
  ? ''
  : ' [skipped: this host has no /proc/<pid>/status and clear_refs to measure real memory]';

function statusField(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    // The process ended between listing and reading it.
    return 0;
  }
}

/** This process and all its descendants. */
export function processTree(root: number = process.pid): number[] {
  const pids = [root];
  for (let index = 0; index < pids.length; index++) {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pids[index]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${pids[index]}/task/${task}/children`, 'utf8');
        for (const child of children.split(' ')) if (child.trim()) pids.push(Number(child));
      } catch {
        // the thread ended
      }
    }
  }
  return pids;
}

/** Resident bytes of the process tree now. */
export function residentBytes(root?: number): number {
  return processTree(root).reduce((sum, pid) => sum + statusField(pid, 'VmRSS'), 0);
}

/** Resets every process's peak to its current resident size. */
export function resetPeaks(root?: number): void {
  for (const pid of processTree(root)) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      // the process ended
    }
  }
}

/**
 * Sum of the peaks since the last reset of every process alive now (at least the peak of the tree
 * at any one moment). Processes that started and ended in between are not seen: callers keep
 * runners alive across a measurement or sample while it runs (see `sampleTreePeak`).
 */
export function peakBytes(root?: number): number {
  return processTree(root).reduce((sum, pid) => sum + statusField(pid, 'VmHWM'), 0);
}

/**
 * Runs `work` while sampling the tree's resident size every few milliseconds, so runners that are
 * replaced during the work are counted too; returns the larger of the sampled peak and the
 * VmHWM sum at the end.
 */
export async function measurePeak<T>(
  work: () => Promise<T>,
  root?: number,
): Promise<{ value: T; peakBytes: number }> {
  resetPeaks(root);
  let sampled = 0;
  const sample = (): void => {
    sampled = Math.max(sampled, peakBytes(root));
  };
  const timer = setInterval(sample, 5);
  try {
    const value = await work();
    sample();
    return { value, peakBytes: sampled };
  } finally {
    clearInterval(timer);
  }
}

export const mebibytes = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;

/**
 * Scripts that allocate until something stops them, one per way of holding memory: the engine
 * must end each with a `memory` error while the host's resident memory stays within the limit.
 */
export const allocationPatterns: Readonly<Record<string, string>> = {
  ArrayBuffers: `const keep = []; for (;;) keep.push(new ArrayBuffer(1 << 20));`,
  'typed arrays': `const keep = []; for (;;) keep.push(new Float64Array(1 << 17).fill(1));`,
  'many small objects': `const keep = []; for (let i = 0; ; i++) keep.push({ i, tag: 'x' });`,
  'big arrays': `const keep = []; for (;;) keep.push(new Array(1_000_000).fill(keep.length));`,
  'strings built by concatenation': `const keep = [], piece = 'abcdefgh'.repeat(16); let s = ''; for (let i = 0; ; i++) { s = s + piece + i; if (s.length > 100_000) { keep.push(s); s = ''; } }`,
  'Map and Set growth': `const map = new Map(), set = new Set(); for (let i = 0; ; i++) { map.set(i, { i }); set.add('key' + i); }`,
};

/**
 * What one runner may add on top of a run's memoryBytes (the executor README's memory model):
 * the runner itself, the engine's fixed start-up memory and the strings crossing the boundary.
 */
export const runnerOverheadBytes = 64 * MiB;

/**
 * About 1.4 KB of TypeScript whose check costs the compiler many seconds and far more than the
 * checker's default 384 MB: six distinct mapped types, each over a union of 59049 template
 * literals and mapped again over 9 letters. One copy alone takes about 3.5 s and stays under
 * 384 MB here, so it would pass a 5 s limit on a fast machine; six copies need over 384 MB
 * whatever the machine's speed (four already stop at the limit after 6 s; unbounded they take
 * 10 s). A type checker must run it off the main thread, within limits.
 */
export const typeLevelBomb = [0, 1, 2, 3, 4, 5]
  .map((i) => {
    const letters = [...'abcdefghi'].map((letter) => `'${letter}${i}'`).join(' | ');
    return [
      `type L${i} = ${letters};`,
      `type P${i} = \`\${L${i}}\${L${i}}\${L${i}}\${L${i}}\${L${i}}\`;`,
      `type M${i} = { [K in P${i}]: { [J in L${i}]: \`\${K}\${J}\` } };`,
      `const m${i}: { [K in P${i}]: { [J in L${i}]: string } } = null! as M${i};`,
    ].join('\n');
  })
  .concat('return 1;')
  .join('\n');
