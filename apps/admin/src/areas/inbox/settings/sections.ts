import { P, TAG_NAME_MAX } from '../constants';

export type Row = Record<string, unknown>;

export type SectionKey =
  | 'spaces'
  | 'teams'
  | 'agents'
  | 'conversation_tags'
  | 'sender_profiles'
  | 'api_keys'
  | 'canned_templates'
  | 'conversation_goals'
  | 'incoming_routings'
  | 'stream_events';

export interface FieldDef {
  key: string;
  type: 'text' | 'textarea' | 'select' | 'multi' | 'chips' | 'switch';
  required?: boolean;
  max?: number;
  /** Spec 5 key names: letters, digits, hyphen, underscore. */
  keyName?: boolean;
  ips?: boolean;
  options?: 'teams' | 'agents' | 'streams';
}

export interface SectionDef {
  key: SectionKey;
  permission: string;
  columns: string[];
  /** Listed and created per space (the current one). */
  spaceScoped: boolean;
  /** Listed and created per WhatsApp stream (chosen above the list). */
  streamScoped?: boolean;
}

/** The settings lists of spec 2 "Inbox", in menu order, with the permission of spec 6 each needs. */
export const SECTIONS: SectionDef[] = [
  { key: 'spaces', permission: P.Admin, columns: ['name', 'key', 'description'], spaceScoped: false },
  { key: 'teams', permission: P.TeamManagement, columns: ['name', 'description', 'agents'], spaceScoped: true },
  { key: 'agents', permission: P.TeamManagement, columns: ['firstname', 'lastname', 'email', 'teams'], spaceScoped: false },
  { key: 'conversation_tags', permission: P.ConversationTags, columns: ['name', 'key'], spaceScoped: true },
  { key: 'sender_profiles', permission: P.SenderProfile, columns: ['name', 'stream', 'senders'], spaceScoped: true },
  { key: 'api_keys', permission: P.ApiKeyView, columns: ['name', 'ipAcl', 'active'], spaceScoped: false },
  { key: 'canned_templates', permission: P.CannedTemplates, columns: ['name', 'templateKey', 'text'], spaceScoped: true },
  { key: 'conversation_goals', permission: P.ConversationGoals, columns: ['name', 'text', 'teams'], spaceScoped: false },
  { key: 'incoming_routings', permission: P.IncomingRouting, columns: ['name', 'stream', 'team', 'senders'], spaceScoped: true },
  { key: 'stream_events', permission: P.ManagerSettings, columns: ['name', 'eventKey', 'text', 'active'], spaceScoped: false, streamScoped: true },
];

export const FIELDS: Record<SectionKey, FieldDef[]> = {
  spaces: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'description', type: 'textarea', max: 1000 },
  ],
  teams: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'description', type: 'textarea', max: 1000 },
    { key: 'agents', type: 'multi', options: 'agents' },
  ],
  agents: [],
  conversation_tags: [{ key: 'name', type: 'text', required: true, max: TAG_NAME_MAX }],
  sender_profiles: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'stream', type: 'select', required: true, options: 'streams' },
    { key: 'senders', type: 'chips' },
  ],
  api_keys: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'ipAcl', type: 'chips', ips: true },
    { key: 'active', type: 'switch' },
  ],
  canned_templates: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'templateKey', type: 'text', required: true, keyName: true, max: 64 },
    { key: 'text', type: 'textarea', required: true, max: 4096 },
  ],
  conversation_goals: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'text', type: 'textarea', required: true, max: 4096 },
    { key: 'teams', type: 'multi', options: 'teams' },
  ],
  incoming_routings: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'stream', type: 'select', required: true, options: 'streams' },
    { key: 'team', type: 'select', required: true, options: 'teams' },
    { key: 'senders', type: 'chips' },
  ],
  stream_events: [
    { key: 'name', type: 'text', required: true, max: 255 },
    { key: 'eventKey', type: 'text', required: true, keyName: true, max: 64 },
    { key: 'text', type: 'textarea', required: true, max: 4096 },
    { key: 'active', type: 'switch' },
  ],
};

const KEY_NAME = /^[A-Za-z0-9_-]+$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}(\/(3[0-2]|[12]?\d))?$/;
const IPV6 = /^[0-9a-f:]+(\/\d{1,3})?$/i;

/** Spec 5 rules for a settings field: required, character limit (fails at or above), key names, IP lists. */
export function validateField(f: FieldDef, value: unknown): string | undefined {
  const empty = value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
  if (f.required && empty) return 'errors.client.required';
  if (empty) return undefined;
  if (typeof value === 'string') {
    if (f.max && value.length > f.max) return 'errors.client.charLimit';
    if (f.keyName && !KEY_NAME.test(value)) return 'errors.client.invalidKey';
  }
  if (f.ips && Array.isArray(value) && value.some((v) => !IPV4.test(String(v)) && !(String(v).includes(':') && IPV6.test(String(v))))) return 'errors.client.ips';
  return undefined;
}
