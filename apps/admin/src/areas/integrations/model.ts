import type { IntegrationConfigInput } from './api';

export type ImportMode = 'admins' | 'all' | 'profiles';

export interface CompletionForm {
  companyName: string;
  mode: ImportMode | '';
  profiles: string[];
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
  };
}
