/** SMPP delivery receipts (SMPP 3.4 appendix B text format, plus the receipted_message_id / message_state TLVs). */

export type ReceiptOutcome = 'delivered' | 'undelivered' | 'intermediate';

export interface ParsedReceipt {
  providerMessageId: string;
  stat: string;
  err: string | null;
  outcome: ReceiptOutcome;
  submitDate: string | null;
  doneDate: string | null;
}

const FINAL_STAT: Record<string, ReceiptOutcome> = {
  DELIVRD: 'delivered',
  DELIVERED: 'delivered',
  EXPIRED: 'undelivered',
  DELETED: 'undelivered',
  UNDELIV: 'undelivered',
  UNDELIVERABLE: 'undelivered',
  REJECTD: 'undelivered',
  REJECTED: 'undelivered',
  UNKNOWN: 'undelivered',
  ACCEPTD: 'intermediate',
  ACCEPTED: 'intermediate',
  ENROUTE: 'intermediate',
};

/** message_state TLV values (SMPP 3.4 5.2.28). */
const MESSAGE_STATE: Record<number, string> = { 1: 'ENROUTE', 2: 'DELIVRD', 3: 'EXPIRED', 4: 'DELETED', 5: 'UNDELIV', 6: 'ACCEPTD', 7: 'UNKNOWN', 8: 'REJECTD' };

export function outcomeOf(stat: string): ReceiptOutcome {
  return FINAL_STAT[stat.toUpperCase()] ?? 'undelivered';
}

/** A field's pattern, compiled once a name (a receipt reads five; compiling them was most of a receipt's parse). */
const FIELD_PATTERNS = new Map<string, RegExp>();

function field(text: string, name: string): string | null {
  let pattern = FIELD_PATTERNS.get(name);
  // `submit date` and `done date` contain a space; values end at the next space.
  if (!pattern) FIELD_PATTERNS.set(name, (pattern = new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i')));
  const m = pattern.exec(text);
  return m ? m[1] : null;
}

/**
 * Parses `id:... sub:... dlvrd:... submit date:... done date:... stat:DELIVRD err:000 text:...`. The TLVs win over
 * the text when both are present (some SMSCs put a shortened or decimal id in the text). Returns null when the
 * receipt names no message.
 */
export function parseReceipt(text: string, tlv: { receiptedMessageId?: string | null; messageState?: number | null } = {}): ParsedReceipt | null {
  const id = tlv.receiptedMessageId || field(text, 'id');
  const statText = field(text, 'stat');
  const stat = (tlv.messageState ? MESSAGE_STATE[tlv.messageState] : undefined) ?? statText;
  if (!id || !stat) return null;
  return {
    providerMessageId: id,
    stat: stat.toUpperCase(),
    err: field(text, 'err'),
    outcome: outcomeOf(stat),
    submitDate: field(text, 'submit date'),
    doneDate: field(text, 'done date'),
  };
}

/** The receipt text an SMSC sends, for the local peers and the simulator. */
export function formatReceipt(id: string, stat: string, opts: { err?: string; text?: string; at?: Date } = {}): string {
  const d = opts.at ?? new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  const ts = `${pad(d.getUTCFullYear() % 100)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}`;
  const dlvrd = stat === 'DELIVRD' ? '001' : '000';
  return `id:${id} sub:001 dlvrd:${dlvrd} submit date:${ts} done date:${ts} stat:${stat} err:${opts.err ?? '000'} text:${(opts.text ?? '').slice(0, 20)}`;
}
