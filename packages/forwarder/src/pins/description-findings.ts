/**
 * What in a tool's description reads as an attempt to steer the model rather than describe the
 * tool (OWASP MCP Top 10, tool poisoning): instructions to ignore or hide things, references to
 * other servers' tools, and characters a person does not see.
 */
export interface DescriptionFinding {
  kind: 'instruction' | 'other-tool' | 'hidden-unicode';
  /** What was found, quoted or named (hidden characters as `U+XXXX`). */
  detail: string;
}

const INSTRUCTIONS: RegExp[] = [
  /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|other|system)\s+(?:instructions?|prompts?|rules?|messages?|tools?)/i,
  /\bdo\s+not\s+(?:tell|inform|mention|reveal|show)\b[^.]*\buser\b/i,
  /\b(?:without|before)\s+(?:telling|informing|asking)\s+the\s+user\b/i,
  /<\s*(?:important|system|instructions?)\s*>/i,
  /\bsystem\s+prompt\b/i,
  /\byou\s+(?:must|should)\s+(?:always\s+)?(?:first\s+)?(?:call|use|invoke|run|read|send)\b/i,
];

// Zero-width and joiner characters, bidirectional controls, word joiners and invisible operators,
// the byte-order mark, and the Unicode tag block (which can spell hidden ASCII).
const HIDDEN =
  /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\u{E0000}-\u{E007F}]/gu;

/**
 * The findings of one description. `otherTools` are names of tools of other servers (exposed and
 * upstream names): a description that names one is trying to direct the model's use of them.
 */
export function descriptionFindings(
  description: string | undefined,
  otherTools: Iterable<string>,
): DescriptionFinding[] {
  if (!description) return [];
  const findings: DescriptionFinding[] = [];
  for (const pattern of INSTRUCTIONS) {
    const match = pattern.exec(description);
    if (match) findings.push({ kind: 'instruction', detail: match[0] });
  }
  const hidden = new Set<string>();
  for (const [char] of description.matchAll(HIDDEN))
    hidden.add(`U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  if (hidden.size > 0) findings.push({ kind: 'hidden-unicode', detail: [...hidden].join(' ') });
  // Words as names are spelled (dots and dashes inside), without a sentence's closing dot.
  const words = new Set(
    (description.match(/[A-Za-z0-9_.-]+/g) ?? []).map((word) => word.replace(/[.-]+$/, '')),
  );
  for (const name of otherTools) {
    if (words.has(name)) findings.push({ kind: 'other-tool', detail: name });
  }
  return findings;
}
