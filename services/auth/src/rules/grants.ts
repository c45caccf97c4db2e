/**
 * No escalation: a user may only hand out (through a role, an invite, a member's roles or an API key) permissions
 * they hold themselves. Answers the permissions of `requested` that `held` lacks, sorted.
 */
export function missingGrants(requested: Iterable<string>, held: Iterable<string>): string[] {
  const have = new Set(held);
  return [...new Set(requested)].filter((p) => !have.has(p)).sort();
}
