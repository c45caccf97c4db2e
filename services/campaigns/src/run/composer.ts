import { hash } from 'node:crypto';
import { analyzeSms, MissingRule, type MissingRuleValue } from '@switchboard/contracts';
import { campaignSalt, RatioPicker, SENDER_ALPHA, VARIANT_ALPHA } from './ratio';

/**
 * The message of one recipient (docs/decisions/0032-campaign-runner.md): the variant and the sender by their ratios,
 * the variant's spintax resolved with a seed of the recipient (the same recipient always gets the same text), then its
 * variables and personal links filled in, and its length in SMS segments.
 *
 * Placeholders are `{{name}}` (a campaign variable's name, a link variable such as `{{shorturl}}`); spintax is
 * `{a|b}`. Placeholders are set aside before the spintax is resolved and filled after, so neither a placeholder nor a
 * contact's value (which may hold `{`, `|` or `}`) is read as spintax.
 */
export interface ComposeVariable {
  /** Variable id (the contact's values are keyed by it); null for a link variable. */
  id: string | null;
  name: string;
  defaultValue: string | null;
  /** 0: skip a recipient without a value; 1: use the default value. */
  missingRule: MissingRuleValue;
  /** A personal link: its value is the link minted for the recipient. */
  link: boolean;
}

export interface ComposeInput {
  campaignId: string;
  variants: ReadonlyArray<{ id: string; text: string; ratio: number }>;
  senders: ReadonlyArray<{ value: string; ratio: number }>;
  variables: readonly ComposeVariable[];
  /** The campaigns service's spintax, deterministic for a seed; none: texts are taken as written. */
  spin?: (text: string, seed: string) => string;
  /** Count SMS segments (SMS campaigns); otherwise one "segment" a message. */
  sms: boolean;
}

export interface ComposeRecipient {
  /** The recipient's position in the campaign's snapshot (the ratio sequence's index). */
  ordinal: number;
  contactId: string;
  occurrence: number;
  /** Values by variable id (when `values` is not given). */
  variables?: Readonly<Record<string, string>>;
  /**
   * The values of the composer's `valueIds`, in that order (null or undefined: none): what the runner reads per
   * recipient instead of its whole variables object, which costs a JSON object per recipient.
   */
  values?: ReadonlyArray<string | null | undefined>;
  /** Where the recipient's values start in `values` (default 0): a page's fields in one array, read by COPY (0156). */
  valuesFrom?: number;
}

export type Composed =
  | { ok: true; variantIndex: number; variantId: string; senderIndex: number; sender: string | null; text: string; segments: number; encoding: string | null }
  | { ok: false; reason: 'missing_variable' | 'missing_link' | 'no_variant' | 'invalid_text'; variable: string | null };

/** Standard variables reachable by their usual names without a campaign variable link (contracts StandardVariable). */
const STANDARD_NAMES: Record<string, string> = { phone: '1', firstName: '2', lastName: '3', email: '4', country: '5', timezone: '6' };
/** The standard fields' names by contact variable id ('2' → firstName). */
export const STANDARD_VARIABLE_NAMES: ReadonlyArray<[string, string]> = Object.entries(STANDARD_NAMES).map(([name, id]) => [id, name]);

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;
/** Private-use marks a placeholder waits behind while spintax is resolved. */
const MARK_OPEN = '\uE000';
const MARK_CLOSE = '\uE001';
const MARKED = /\uE000(\d+)\uE001/g;

interface Template {
  id: string;
  /** The text with each placeholder replaced by a mark naming its slot. */
  marked: string;
  /** Slot -> variable. */
  slots: ComposeVariable[];
  /** Slot -> index of its variable in `valueIds` (-1 for a link). */
  valueIndex: number[];
  hasSpintax: boolean;
  /**
   * Without spintax: the marked text cut at its marks, literals[0] + value of slot 0 + literals[1] + ..., so a
   * recipient's text is joined from its values instead of replaced by a regular expression (most of compose's time).
   * Null with spintax, or when the marks are not the slots in order.
   */
  literals: string[] | null;
}

/**
 * The deterministic message id of a recipient: the same campaign, contact and copy always give the same uuid, on every
 * attempt of the audience (docs/decisions/0151). Its bytes are the campaign (48 bits), version 8, the contact (60 bits,
 * around the RFC 4122 variant) and the copy (12 bits), so an audience, read in contact order, writes its uuids in
 * ascending order: each chunk's COPY appends to one place of `recipient_message_idx` instead of touching a random page
 * a row. One-to-one, so unique by construction; ids outside those ranges get the name-based SHA-1 uuid (version 5), and
 * the two versions never meet.
 */
export function recipientMessageUuid(campaignId: string, contactId: string, occurrence: number): string {
  return recipientMessageUuids(campaignId)(contactId, occurrence);
}

/**
 * `recipientMessageUuid` of one campaign, its part worked out once: what an audience chunk's thousands of recipients
 * take (docs/decisions/0156).
 */
export function recipientMessageUuids(campaignId: string): (contactId: string, occurrence: number) => string {
  const campaign = orderedHex(campaignId, 12);
  if (campaign === null) return (contactId, occurrence) => recipientMessageUuidV5(campaignId, contactId, occurrence);
  const head = `${campaign.slice(0, 8)}-${campaign.slice(8)}-8`;
  return (contactId, occurrence) => {
    const contact = orderedHex(contactId, 15);
    if (contact === null || !Number.isInteger(occurrence) || occurrence < 0 || occurrence > 0xfff) return recipientMessageUuidV5(campaignId, contactId, occurrence);
    return `${head}${contact.slice(0, 3)}-8${contact.slice(3, 6)}-${contact.slice(6)}${occurrence.toString(16).padStart(3, '0')}`;
  };
}

/** A decimal id as `digits` hex digits, or null when it is not a plain non-negative decimal or does not fit. */
function orderedHex(id: string, digits: number): string | null {
  if (!DECIMAL.test(id)) return null;
  // up to 15 decimal digits a Number holds exactly (10^15 < 2^53)
  const hex = id.length <= 15 ? Number(id).toString(16) : BigInt(id).toString(16);
  return hex.length > digits ? null : hex.padStart(digits, '0');
}

const DECIMAL = /^(0|[1-9][0-9]{0,19})$/;

/** The name-based SHA-1 uuid (version 5) every recipient had before 0151; stored recipients keep theirs. */
export function recipientMessageUuidV5(campaignId: string, contactId: string, occurrence: number): string {
  // one-shot crypto.hash: a third of createHash's cost, a million times at a campaign's start
  const x = hash('sha1', `switchboard.campaign:${campaignId}:${contactId}:${occurrence}`, 'hex');
  // version 5 (name-based, SHA-1) in byte 6, the RFC 4122 variant in byte 8
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-5${x.slice(13, 16)}-${HEX[(parseInt(x[16], 16) & 0x3) | 0x8]}${x.slice(17, 20)}-${x.slice(20, 32)}`;
}

const HEX = '0123456789abcdef';

export class Composer {
  private readonly templates: Template[];
  private readonly variants: RatioPicker;
  private readonly senders: RatioPicker;
  /** The link variables the texts use (their minted values are needed before composing). */
  readonly linkVariables: string[];
  /** The variable ids the texts use (a recipient's `values` come in this order). */
  readonly valueIds: string[];

  constructor(private readonly input: ComposeInput) {
    const salt = campaignSalt(input.campaignId);
    this.variants = new RatioPicker(input.variants, salt, VARIANT_ALPHA);
    this.senders = new RatioPicker(input.senders, salt, SENDER_ALPHA);
    const byName = new Map(input.variables.map((v) => [v.name, v]));
    const links = new Set<string>();
    const valueIds: string[] = [];
    this.templates = input.variants.map((variant) => {
      const slots: ComposeVariable[] = [];
      const valueIndex: number[] = [];
      const marked = variant.text.replace(PLACEHOLDER, (whole, name: string) => {
        let v = byName.get(name) ?? null;
        if (!v && STANDARD_NAMES[name]) v = { id: STANDARD_NAMES[name], name, defaultValue: '', missingRule: MissingRule.UseDefault, link: false };
        if (!v && (name === 'shorturl' || name === 'optout')) v = { id: null, name, defaultValue: null, missingRule: MissingRule.SkipRecipient, link: true };
        if (!v) return whole; // not a variable: left as written
        if (v.link) links.add(v.name);
        slots.push(v);
        if (v.id === null || v.link) valueIndex.push(-1);
        else {
          if (!valueIds.includes(v.id)) valueIds.push(v.id);
          valueIndex.push(valueIds.indexOf(v.id));
        }
        return `${MARK_OPEN}${slots.length - 1}${MARK_CLOSE}`;
      });
      const hasSpintax = /[{}[\]\\]/.test(marked);
      const literals: string[] = [];
      const slotAt: number[] = [];
      let from = 0;
      for (const m of marked.matchAll(MARKED)) {
        literals.push(marked.slice(from, m.index));
        slotAt.push(Number(m[1]));
        from = m.index + m[0].length;
      }
      literals.push(marked.slice(from));
      // joined only when its marks are its slots in order (a text may hold the marks' characters itself)
      const inOrder = slotAt.length === slots.length && slotAt.every((s, i) => s === i);
      return { id: variant.id, marked, slots, valueIndex, hasSpintax, literals: hasSpintax || !inOrder ? null : literals };
    });
    this.linkVariables = [...links];
    this.valueIds = valueIds;
  }

  /** A slot's value for a recipient (its link, its value or the default), or why it has none. */
  private value(t: Template, slot: number, r: ComposeRecipient, from: number, links: Readonly<Record<string, string>> | undefined): string | Composed {
    const v = t.slots[slot];
    if (v.link) {
      const url = links?.[v.name];
      return url ? url : { ok: false, reason: 'missing_link', variable: v.name };
    }
    const value = v.id === null ? undefined : r.values ? r.values[from + t.valueIndex[slot]] : r.variables?.[v.id];
    if (value !== undefined && value !== null && value !== '') return value;
    if (v.missingRule === MissingRule.UseDefault) return v.defaultValue ?? '';
    return { ok: false, reason: 'missing_variable', variable: v.name };
  }

  /** The variant a recipient gets (for link requests made before composing); -1 when no variant has a ratio. */
  variantOf(ordinal: number): number {
    return this.variants.pick(ordinal);
  }

  /** The recipient's message; `links` holds its minted links by link variable name. */
  compose(r: ComposeRecipient, links?: Readonly<Record<string, string>>): Composed {
    const vi = this.variants.pick(r.ordinal);
    if (vi < 0) return { ok: false, reason: 'no_variant', variable: null };
    const t = this.templates[vi];
    const from = r.valuesFrom ?? 0;
    let text: string;
    if (t.literals) {
      // no spintax: the marks are in slot order, so the text is joined as the values are found (no array of them)
      text = t.literals[0];
      for (let slot = 0; slot < t.slots.length; slot++) {
        const value = this.value(t, slot, r, from, links);
        if (typeof value !== 'string') return value;
        text += value + t.literals[slot + 1];
      }
    } else {
      const values: string[] = [];
      for (let slot = 0; slot < t.slots.length; slot++) {
        const value = this.value(t, slot, r, from, links);
        if (typeof value !== 'string') return value;
        values.push(value);
      }
      text = t.marked;
      if (t.hasSpintax && this.input.spin) {
        try {
          text = this.input.spin(text, `${this.input.campaignId}:${r.contactId}:${r.occurrence}`);
        } catch {
          // a text saved before its word list was emptied or deleted: the recipient cannot be composed
          return { ok: false, reason: 'invalid_text', variable: null };
        }
      }
      if (values.length) text = text.replace(MARKED, (_, slot: string) => values[Number(slot)] ?? '');
    }
    const si = this.senders.pick(r.ordinal);
    const sender = si < 0 ? null : this.input.senders[si].value;
    if (this.input.sms) {
      const a = analyzeSms(text);
      return { ok: true, variantIndex: vi, variantId: t.id, senderIndex: si, sender, text, segments: a.segments, encoding: a.encoding };
    }
    return { ok: true, variantIndex: vi, variantId: t.id, senderIndex: si, sender, text, segments: 1, encoding: null };
  }
}
