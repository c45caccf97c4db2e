/**
 * Spec 5: a draft role name is made unique by appending " - N" (smallest free N from 1); names compare
 * case-insensitively, ignoring surrounding spaces. The server applies the same rule; the console shows the result
 * before saving.
 */
export function uniqueRoleName(wanted: string, taken: Iterable<string>): string {
  const base = wanted.trim();
  const used = new Set([...taken].map((n) => n.trim().toLowerCase()));
  if (!used.has(base.toLowerCase())) return base;
  for (let n = 1; ; n++) {
    const candidate = `${base} - ${n}`;
    if (!used.has(candidate.toLowerCase())) return candidate;
  }
}

/** The read-only roles every account shares, by their stored (English) name: shown translated. */
const SYSTEM_ROLE_KEYS: Record<string, string> = {
  'Tenant owner': 'tenantOwner',
  'Inbox Admin': 'inboxAdmin',
  'Inbox Manager': 'inboxManager',
  'Inbox Agent': 'inboxAgent',
};

/** A role's display name: system roles translated, custom roles as their owners named them. */
export function roleLabel(name: string, translate: (key: string, options?: Record<string, unknown>) => string): string {
  const key = SYSTEM_ROLE_KEYS[name];
  return key ? translate(`team.roles.systemNames.${key}`, { _: name }) : name;
}
