import Table from 'cli-table3';
import type { Colors } from './output.js';

/** An aligned, borderless table; widths account for colour codes and wide characters. */
export function renderTable(headers: string[], rows: string[][], colors: Colors): string {
  const blank = {
    top: '',
    'top-mid': '',
    'top-left': '',
    'top-right': '',
    bottom: '',
    'bottom-mid': '',
    'bottom-left': '',
    'bottom-right': '',
    left: '',
    'left-mid': '',
    mid: '',
    'mid-mid': '',
    right: '',
    'right-mid': '',
    middle: '  ',
  };
  const table = new Table({
    head: headers.map((header) => colors.bold(header)),
    chars: blank,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0, compact: true },
  });
  for (const row of rows) table.push(row);
  return table
    .toString()
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}
