/**
 * Which domain each link of a batch goes to (spec 9: pool distribution spread evenly 10, one by one 1). Pure: the
 * minting service loads the candidates (locked), calls `pickDomains`, and writes the usages it answers.
 */

export const Distribution = { SpreadEvenly: 10, OneByOne: 1 } as const;
export type DistributionValue = (typeof Distribution)[keyof typeof Distribution];

/** Domain states (spec 4). Only a configured domain takes links. */
export const DomainState = { NotConfigured: 0, Configured: 1, Pending: 2, ValidPending: 3, Declined: 4, Archived: 5, ReachedLimit: 6, Blocked: 7 } as const;

export interface DomainCandidate {
  id: string;
  name: string;
  state: number;
  archived: boolean;
  /** The most links this domain may carry in all (spec: `messages_limit`); null: no limit. */
  messagesLimit: number | null;
  totalUsages: number;
}

export interface DomainPick {
  /** For each link, in order: the index into `candidates` of its domain. */
  assignment: Uint16Array;
  /** Links given to each candidate (by index). */
  added: number[];
  /** Candidates that reached their limit with this batch. */
  reachedLimit: string[];
}

export function usable(d: DomainCandidate): boolean {
  return d.state === DomainState.Configured && !d.archived && (d.messagesLimit === null || d.totalUsages < d.messagesLimit);
}

/**
 * Spreads `count` links over the usable candidates. Spread evenly: the least used domain first, one link at a time
 * to the domain with the fewest usages so far (ties by the candidates' order), so a pool's usages even out across
 * batches. One by one: every link to the first usable domain (in the candidates' order) until its limit, then the
 * next. A domain never goes past its `messagesLimit`. Null when the usable domains cannot take `count` links: the
 * batch mints nothing (no_valid_domain).
 */
export function pickDomains(candidates: DomainCandidate[], mode: DistributionValue, count: number): DomainPick | null {
  if (candidates.length > 65_535) throw new RangeError('pickDomains: at most 65,535 candidates');
  const free = candidates.map((d) => (usable(d) ? (d.messagesLimit === null ? Infinity : d.messagesLimit - d.totalUsages) : 0));
  const capacity = free.reduce((s, f) => s + f, 0);
  if (count === 0) return { assignment: new Uint16Array(0), added: candidates.map(() => 0), reachedLimit: [] };
  if (capacity < count) return null;
  const assignment = new Uint16Array(count);
  const added = candidates.map(() => 0);
  if (mode === Distribution.OneByOne) {
    let at = 0;
    for (let i = 0; i < candidates.length && at < count; i++) {
      const n = Math.min(free[i], count - at);
      assignment.fill(i, at, at + n);
      added[i] = n;
      at += n;
    }
  } else {
    // water-filling: give each usable domain links until the usages level out, round-robin once they are level
    const open = candidates.map((_, i) => i).filter((i) => free[i] > 0);
    const usage = candidates.map((d) => d.totalUsages);
    let at = 0;
    while (at < count) {
      let min = Infinity;
      for (const i of open) if (usage[i] < min && added[i] < free[i]) min = usage[i];
      const level = open.filter((i) => usage[i] === min && added[i] < free[i]);
      let next = Infinity;
      for (const i of open) if (usage[i] > min && added[i] < free[i] && usage[i] < next) next = usage[i];
      // raise every domain at the lowest level by the same amount: up to the next level, its limit, or what is left
      const step = Math.min(next - min, ...level.map((i) => free[i] - added[i]), Math.floor((count - at) / level.length));
      if (step === 0) {
        // fewer links left than domains at this level: one each, in order
        for (const i of level) {
          if (at >= count) break;
          assignment[at++] = i;
          added[i]++;
          usage[i]++;
        }
        continue;
      }
      // interleave, so consecutive recipients get different domains
      for (let s = 0; s < step; s++) for (const i of level) assignment[at++] = i;
      for (const i of level) {
        added[i] += step;
        usage[i] += step;
      }
    }
  }
  const reachedLimit = candidates.filter((d, i) => added[i] > 0 && d.messagesLimit !== null && d.totalUsages + added[i] >= d.messagesLimit).map((d) => d.id);
  return { assignment, added, reachedLimit };
}
