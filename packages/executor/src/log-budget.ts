// Console output accounting, shared by the runners (which stop sending) and the host (which keeps
// the authoritative count). Erasable TypeScript only (loaded by the runners in development).

export class LogBudget {
  bytes = 0;
  lines = 0;
  truncated = false;
  private readonly maxBytes: number;
  private readonly maxLines: number;

  constructor(maxBytes: number, maxLines: number) {
    this.maxBytes = maxBytes;
    this.maxLines = maxLines;
  }

  /** Counts one entry; false once the budget is spent (that entry and all later ones are dropped). */
  admit(message: string): boolean {
    if (this.truncated) return false;
    const size = Buffer.byteLength(message, 'utf8');
    if (this.lines + 1 > this.maxLines || this.bytes + size > this.maxBytes) {
      this.truncated = true;
      return false;
    }
    this.bytes += size;
    this.lines += 1;
    return true;
  }
}
