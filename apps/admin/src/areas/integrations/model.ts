import type { IntegrationConfigInput } from './api';

export type ImportMode = 'admins' | 'all' | 'profiles';

export interface CompletionForm {
  companyName: string;
  mode: ImportMode | '';
  profiles: string[];
  /** A note on the CRM contact when an inbox conversation with its number is closed (decision 0065). */
  noteOnClose: boolean;
}

/**
 * Spec 5, integration: a choice of import mode is required, and profiles when the mode is selected profiles. The
 * fields are marked without a message (spec: "messages not shown").
 */
export function completionErrors(f: CompletionForm): { mode: boolean; profiles: boolean } {
  return { mode: f.mode === '', profiles: f.mode === 'profiles' && f.profiles.length === 0 };
}

export function completionBody(f: CompletionForm): IntegrationConfigInput {
  const mode = f.mode === '' ? 'admins' : f.mode;
  return {
    ...(f.companyName.trim() ? { company_name: f.companyName.trim() } : {}),
    import_users: mode === 'profiles' ? { type: mode, profiles: f.profiles } : { type: mode },
    note_on_close: f.noteOnClose,
  };
}

/** The vendors that take notes on a contact (every CRM and shop connector but the dialer): they show the close-note switch. */
export const takesNotes = (type: string): boolean => type !== 'dialer' && type !== 'zohoinbox';
