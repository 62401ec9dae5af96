// The peer bench's one runner: every contender runs in its own process, the contenders of a layer
// take turns in a shuffled order each round, and ratios are taken per round (paired), so a noisy
// moment hurts both sides of a ratio alike. Children report through `report()`.
import { spawn } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { seededRandom } from '@toolwire/testing/random';

/** What a layer measures: a time per operation (lower is better) or a throughput (higher). */
export type Unit = 'ms/op' | 'ops/s' | 'MB';

export interface Contender {
  /** Shown in the table and named by goals, e.g. "toolwire", "ai-sdk generateText". */
  name: string;
  role: 'toolwire' | 'peer' | 'floor';
  /** A module run as its own process with tsx; it must call `report(value)` once. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
}

/** "subject ÷ against" must be ≤ (time, memory) or ≥ (throughput) `ratio`. */
export interface Goal {
  subject: string;
  against: string;
  ratio: number;
}

/** "subject" must be ≤ (time, memory) or ≥ (throughput) `limit`, in the layer's unit. */
export interface LimitGoal {
  subject: string;
  limit: number;
}

export interface Layer {
  name: string;
  unit: Unit;
  contenders: Contender[];
  goals: Goal[];
  /** Absolute goals (e.g. an RSS budget), judged on the subject's median. */
  limits?: LimitGoal[];
  /** Notes printed under the table (set-up, what the floor is). */
  notes?: string[];
  /**
   * Starts what the contenders talk to (a fake upstream), in the runner's process, before the
   * layer's first round; its `env` is given to every contender and it is closed after the last.
   */
  start?: () => Promise<LayerFixture>;
}

export interface LayerFixture {
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface ContenderResult {
  name: string;
  role: Contender['role'];
  values: number[];
  min: number;
  median: number;
  max: number;
}

export interface GoalResult extends Goal {
  /** Per-round ratios subject ÷ against. */
  ratios: number[];
  min: number;
  median: number;
  max: number;
  met: boolean;
}

export interface LimitResult extends LimitGoal {
  median: number;
  met: boolean;
}

export interface LayerResult {
  layer: string;
  unit: Unit;
  contenders: ContenderResult[];
  goals: GoalResult[];
  limits: LimitResult[];
  notes: string[];
}

const RESULT_PREFIX = 'PEER-BENCH-RESULT ';

/**
 * Called once by a contender's process with its measured value in the layer's unit. A process
 * that measures more than one thing (RSS after 100k and after 1M calls) also passes `also`: each
 * entry becomes its own row, "<contender> <key>", which goals can name.
 */
export function report(value: number, also: Record<string, number> = {}): void {
  for (const v of [value, ...Object.values(also)]) {
    if (!Number.isFinite(v)) throw new Error(`peer bench: a contender reported ${v}`);
  }
  process.stdout.write(`\n${RESULT_PREFIX}${JSON.stringify({ value, also })}\n`);
}

/**
 * What a time-per-operation contender measures: `op` run one after another, `warmup` times
 * untimed first (JIT, connections, caches), then `iterations` times in 20 batches; returns the
 * median batch's ms per op. On a shared machine a burst of someone else's load lands in a batch or
 * two, which the median leaves out, where a plain mean would carry it.
 */
export async function msPerOp(
  op: () => Promise<unknown>,
  options: { warmup: number; iterations: number },
): Promise<number> {
  for (let i = 0; i < options.warmup; i++) await op();
  const batches = Math.min(20, Math.max(1, options.iterations));
  const size = Math.ceil(options.iterations / batches);
  const perOp: number[] = [];
  for (let batch = 0; batch < batches; batch++) {
    const started = performance.now();
    for (let i = 0; i < size; i++) await op();
    perOp.push((performance.now() - started) / size);
  }
  return stats(perOp).median;
}

/** A contender's warm-up and timed counts: the layer's defaults unless the environment sets them. */
export function iterationsFromEnv(defaults: { warmup: number; iterations: number }): {
  warmup: number;
  iterations: number;
} {
  return {
    warmup: envNumber('PEER_BENCH_WARMUP', defaults.warmup),
    iterations: envNumber('PEER_BENCH_ITERATIONS', defaults.iterations),
  };
}

/** Reads an integer option a layer passes its contenders through the environment. */
export function envNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new Error(`peer bench: ${name}=${raw} is not a number`);
  return value;
}

const lowerIsBetter = (unit: Unit): boolean => unit !== 'ops/s';

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function stats(values: number[]): { min: number; median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { min: sorted[0]!, median, max: sorted.at(-1)! };
}

/** Runs one contender's process and returns what it reported. */
export function runContender(
  contender: Contender,
  timeoutMs: number,
): Promise<{ value: number; also: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', contender.script, ...(contender.args ?? [])],
      {
        env: { ...process.env, ...contender.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (!line) {
        reject(
          new Error(
            `${contender.name} ended (${signal ?? `exit ${code}`}) without a result.\n${stderr.slice(-2000)}`,
          ),
        );
        return;
      }
      const result = JSON.parse(line.slice(RESULT_PREFIX.length)) as {
        value: number;
        also?: Record<string, number>;
      };
      resolve({ value: result.value, also: result.also ?? {} });
    });
  });
}

export interface RunOptions {
  rounds: number;
  seed: number;
  timeoutMs: number;
  log?: (line: string) => void;
}

/** Runs every contender of a layer `rounds` times, interleaved, and evaluates the goals. */
export async function runLayer(layer: Layer, options: RunOptions): Promise<LayerResult> {
  const next = seededRandom(options.seed);
  const values = new Map<string, number[]>(layer.contenders.map((c) => [c.name, []]));
  // Rows reported through `also`, shown after the contender that reported them.
  const extras = new Map<string, string[]>(layer.contenders.map((c) => [c.name, []]));
  const fixture = await layer.start?.();
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const contender of shuffled(layer.contenders, next)) {
        const env = fixture ? { ...fixture.env, ...contender.env } : contender.env;
        const { value, also } = await runContender({ ...contender, env }, options.timeoutMs);
        values.get(contender.name)!.push(value);
        let shown = `${contender.name} ${format(value, layer.unit)}`;
        for (const [key, extra] of Object.entries(also)) {
          const name = `${contender.name} ${key}`;
          if (!values.has(name)) {
            values.set(name, []);
            extras.get(contender.name)!.push(name);
          }
          values.get(name)!.push(extra);
          shown += `, ${key} ${format(extra, layer.unit)}`;
        }
        options.log?.(`  ${layer.name} round ${round + 1}/${options.rounds}: ${shown}`);
      }
    }
  } finally {
    await fixture?.close();
  }
  const contenders = layer.contenders.flatMap((c) =>
    [c.name, ...extras.get(c.name)!].map((name) => ({
      name,
      role: c.role,
      values: values.get(name)!,
      ...stats(values.get(name)!),
    })),
  );
  const goals = layer.goals.map((goal) => {
    const subject = values.get(goal.subject);
    const against = values.get(goal.against);
    if (!subject || !against) {
      throw new Error(
        `peer bench: goal ${goal.subject} ÷ ${goal.against} names an unknown contender`,
      );
    }
    const ratios = subject.map((value, i) => value / against[i]!);
    const s = stats(ratios);
    const met = lowerIsBetter(layer.unit) ? s.median <= goal.ratio : s.median >= goal.ratio;
    return { ...goal, ratios, ...s, met };
  });
  const limits = (layer.limits ?? []).map((goal) => {
    const subject = values.get(goal.subject);
    if (!subject) throw new Error(`peer bench: limit on ${goal.subject} names an unknown row`);
    const { median } = stats(subject);
    const met = lowerIsBetter(layer.unit) ? median <= goal.limit : median >= goal.limit;
    return { ...goal, median, met };
  });
  return {
    layer: layer.name,
    unit: layer.unit,
    contenders,
    goals,
    limits,
    notes: layer.notes ?? [],
  };
}

export function format(value: number, unit: Unit): string {
  if (unit === 'ops/s') return `${Math.round(value).toLocaleString('en-US')} ops/s`;
  if (unit === 'MB') return `${value.toFixed(1)} MB`;
  return value >= 10 ? `${value.toFixed(1)} ms` : `${value.toFixed(3)} ms`;
}

const ratio = (value: number): string => `${value.toFixed(2)}×`;

/** The Markdown table the root README's performance section carries. */
export function markdown(results: LayerResult[], rounds: number): string {
  const lines: string[] = [];
  lines.push(
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}; ${rounds} interleaved rounds, one process per contender.`,
  );
  for (const result of results) {
    const better = lowerIsBetter(result.unit) ? 'lower is better' : 'higher is better';
    lines.push('', `**${result.layer}** (${result.unit}, ${better})`, '');
    lines.push('| contender | role | min | median | max |', '|---|---|--:|--:|--:|');
    for (const c of result.contenders) {
      lines.push(
        `| ${c.name} | ${c.role} | ${format(c.min, result.unit)} | ${format(c.median, result.unit)} | ${format(c.max, result.unit)} |`,
      );
    }
    if (result.goals.length + result.limits.length > 0) {
      lines.push('', '| goal | ratio (median, min–max) | |', '|---|---|---|');
      for (const g of result.goals) {
        const sign = lowerIsBetter(result.unit) ? '≤' : '≥';
        lines.push(
          `| ${g.subject} ÷ ${g.against} ${sign} ${g.ratio} | ${ratio(g.median)} (${ratio(g.min)}–${ratio(g.max)}) | ${g.met ? 'met' : '**not met**'} |`,
        );
      }
      for (const g of result.limits) {
        const sign = lowerIsBetter(result.unit) ? '≤' : '≥';
        lines.push(
          `| ${g.subject} ${sign} ${format(g.limit, result.unit)} | ${format(g.median, result.unit)} (median) | ${g.met ? 'met' : '**not met**'} |`,
        );
      }
    }
    for (const note of result.notes) lines.push('', note);
  }
  return lines.join('\n');
}

/** The plain-text table printed as a run ends. */
export function table(result: LayerResult): string {
  const lines = [
    `\n${result.layer} (${result.unit}, ${lowerIsBetter(result.unit) ? 'lower' : 'higher'} is better)`,
  ];
  const width = Math.max(...result.contenders.map((c) => c.name.length), 9);
  lines.push(
    `  ${'contender'.padEnd(width)}  ${'role'.padEnd(8)}  ${'min'.padStart(14)}  ${'median'.padStart(14)}  ${'max'.padStart(14)}`,
  );
  for (const c of result.contenders) {
    lines.push(
      `  ${c.name.padEnd(width)}  ${c.role.padEnd(8)}  ${format(c.min, result.unit).padStart(14)}  ${format(c.median, result.unit).padStart(14)}  ${format(c.max, result.unit).padStart(14)}`,
    );
  }
  for (const g of result.goals) {
    const sign = lowerIsBetter(result.unit) ? '≤' : '≥';
    lines.push(
      `  goal ${g.subject} ÷ ${g.against} ${sign} ${g.ratio}: ${ratio(g.median)} (min ${ratio(g.min)}, max ${ratio(g.max)}) ${g.met ? 'met' : 'NOT MET'}`,
    );
  }
  for (const g of result.limits) {
    const sign = lowerIsBetter(result.unit) ? '≤' : '≥';
    lines.push(
      `  goal ${g.subject} ${sign} ${format(g.limit, result.unit)}: ${format(g.median, result.unit)} (median) ${g.met ? 'met' : 'NOT MET'}`,
    );
  }
  return lines.join('\n');
}
