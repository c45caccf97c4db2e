/** Spec 5: a new role is "Custom role name" with "Role description", of type platform. */
export const DEFAULT_ROLE_NAME = 'Custom role name';
export const DEFAULT_ROLE_DESCRIPTION = 'Role description';
export const ROLE_NAME_MAX = 100;

/** Spec 5: a copied role is "Copy of X". */
export const copyName = (name: string): string => `Copy of ${name}`;

/**
 * Spec 5: a draft role name is made unique by appending " - N" with the smallest N from 1 that is free. Names
 * compare case-insensitively (ignoring surrounding spaces), so "admin" and "Admin " do not both exist.
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
