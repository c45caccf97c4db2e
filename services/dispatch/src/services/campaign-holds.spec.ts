/**
 * A pause's hold in memory against the refresh that reads the held campaigns every HOLDS_REFRESH_MS
 * (docs/decisions/0051): a refresh whose read began before the hold's transaction committed must not drop the hold
 * when it finishes after it (CI saw a paused campaign's queue go out until the next refresh).
 */
import { CampaignStatus, CampaignStatusChangedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import type { DataSource } from 'typeorm';
import { CampaignHolds } from './campaign-holds.service';

const CAMPAIGN = '41';
const ACCOUNT = '7';

/** A DataSource whose reads of `campaign_hold` answer when the test says, with what the test says the table holds. */
function fakeDataSource() {
  const reads: Array<(rows: Array<{ id: string }>) => void> = [];
  const committed: string[] = [];
  const ds = {
    query: (sql: string) => {
      if (sql.startsWith('SELECT')) return new Promise((resolve) => reads.push(resolve));
      return Promise.resolve([[], 0]); // the requeue of held rows of released campaigns: nothing
    },
    transaction: async <T>(fn: (m: unknown) => Promise<T>) => {
      const m = {
        query: (sql: string, params: unknown[]) => {
          if (sql.includes('INSERT INTO dispatch.campaign_hold')) {
            committed.push(`${String(params[2])}`);
            return Promise.resolve([{ held: params[2] }]);
          }
          return Promise.resolve([]);
        },
      };
      return fn(m);
    },
  };
  return { ds: ds as unknown as DataSource, reads, committed };
}

function holdsOn(ds: DataSource): CampaignHolds {
  const repo = { dropAborted: () => Promise.resolve([]) };
  const relay = { kick: () => undefined, statusBatches: undefined };
  return new CampaignHolds(ds, {} as never, { consumers: true } as never, repo as never, relay as never, {} as never);
}

const status = (to: number, at: Date) =>
  createEnvelope(CampaignStatusChangedV1, { campaignId: CAMPAIGN, accountId: ACCOUNT, from: 6, to, action: to === CampaignStatus.Paused ? 'pause' : 'play', reason: null, haltReasonId: null, changedAt: at.toISOString() }, { accountId: ACCOUNT, source: 'campaigns' });

const settle = () => new Promise((r) => setImmediate(r));

describe('CampaignHolds: a pause against a refresh in flight', () => {
  it('keeps the hold when a refresh read the table before the pause committed and finished after it', async () => {
    const { ds, reads, committed } = fakeDataSource();
    const holds = holdsOn(ds);
    const stale = holds.refresh(); // reads the table: the pause is not there yet
    await settle();
    expect(reads).toHaveLength(1);
    await holds.onStatus(status(CampaignStatus.Paused, new Date()));
    expect(committed).toEqual(['true']);
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(true);
    reads[0]([]); // the read from before the commit answers now
    await stale;
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(true);

    // the next refresh reads after the commit: the table says held
    const next = holds.refresh();
    await settle();
    reads[1]([{ id: `${ACCOUNT}:${CAMPAIGN}` }]);
    await next;
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(true);

    // from then on the table wins: released elsewhere (another replica's play), the hold goes
    const after = holds.refresh();
    await settle();
    reads[2]([]);
    await after;
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(false);
  });

  it('lets a refresh that began after the pause ended decide, and a play here release at once', async () => {
    const { ds, reads } = fakeDataSource();
    const holds = holdsOn(ds);
    const t0 = new Date();
    await holds.onStatus(status(CampaignStatus.Paused, t0));
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(true);
    await holds.onStatus(status(CampaignStatus.Sending, new Date(t0.getTime() + 1000)));
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(false);
    // the pause's memory hold does not outlive the play: a refresh after it reads the released table, nothing held
    const r = holds.refresh();
    await settle();
    reads[0]([]);
    await r;
    expect(holds.isHeld(CAMPAIGN, ACCOUNT)).toBe(false);
  });
});
