import type { WhatsAppTemplate } from '../types';

export interface WhatsAppDraft {
  mode: 'template' | 'text';
  template: string;
  /** `BODY.1` -> value: placeholders filled per section (spec 2). */
  placeholders: Record<string, string>;
}

const PLACEHOLDER = /\{\{(\d+)\}\}/g;

/** The numbered placeholders of a text, in order, once each. */
export const placeholdersOf = (text: string | undefined): string[] => [...new Set([...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]))];

export const fill = (text: string, section: string, values: Record<string, string>) => text.replace(PLACEHOLDER, (whole, n: string) => values[`${section}.${n}`] || whole);

/** The Cloud API `template` object of a send: name, language, and the text parameters of each section. */
export function templatePayload(t: WhatsAppTemplate, values: Record<string, string>): Record<string, unknown> {
  const components = (t.components ?? [])
    .filter((c) => (c.type === 'HEADER' && (c.format ?? 'TEXT') === 'TEXT') || c.type === 'BODY')
    .map((c) => ({ type: c.type.toLowerCase(), parameters: placeholdersOf(c.text).map((n) => ({ type: 'text', text: values[`${c.type}.${n}`] ?? '' })) }))
    .filter((c) => c.parameters.length > 0);
  return { template: { name: t.name, language: { code: t.language }, components } };
}

export const missingPlaceholders = (t: WhatsAppTemplate | undefined, values: Record<string, string>): boolean =>
  !!t && (t.components ?? []).some((c) => (c.type === 'HEADER' || c.type === 'BODY') && placeholdersOf(c.text).some((n) => !values[`${c.type}.${n}`]?.trim()));
