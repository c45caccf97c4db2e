import { randomUUID } from 'node:crypto';
import { MessageRefundDueV1 } from '@switchboard/contracts';
import { PROCESS_ROLES } from '@switchboard/platform';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { DISPATCH_CONNECTION, StuckMessageSweeper } from '../src';
import { DISPATCH_OPTIONS } from '../src/dispatch.options';
import { DispatchOutboxRelay } from '../src/services/events.service';
import { startDispatch, type DispatchTestApp } from './support';

/** A claimed message has its claim row (docs/decisions/0206), written with the claim as the dispatcher writes it. */
const CLAIM_ROW = `INSERT INTO dispatch.message_claim (message_id, claimed_by) SELECT id, claimed_by FROM m WHERE send_state = 'submitting'`;

// Item 4(c) of issue 10: messages stuck in a non-final status past a limit are resumed or failed with a refund,
// each exactly once, also with two replicas sweeping at the same time. The pump is kept idle (batchSize 0) so that
// only the sweeper touches the rows planted here.

describe('stuck-message sweeper', () => {
  let d: DispatchTestApp;
  let sweeper: StuckMessageSweeper;
  /** A second replica's sweeper over the same database. */
  let replica: StuckMessageSweeper;

  beforeAll(async () => {
    d = await startDispatch({ dispatcher: { batchSize: 0 }, stuck: { resumeAfterMs: 60_000, failAfterMs: 3_600_000, intervalMs: 3_600_000, batch: 50 } });
    sweeper = d.t.app.get(StuckMessageSweeper);
    replica = new StuckMessageSweeper(
      d.t.app.get<DataSource>(getDataSourceToken(DISPATCH_CONNECTION)),
      d.t.app.get(DISPATCH_OPTIONS),
      d.t.app.get(PROCESS_ROLES),
      d.t.app.get(DispatchOutboxRelay),
    );
  });
  afterAll(async () => {
    await d.close();
  });

  /** Plants a message as a broken run would leave it. */
  async function plant(o: { sendState: 'queued' | 'submitting'; untouchedMs: number; dueAgoMs?: number; flagged?: boolean; claimedBy?: string }): Promise<string> {
    const uuid = randomUUID();
    await d.sql(
      `WITH m AS (INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, encoding, segments,
         price_micros, currency, status, send_state, queue_state, attempt_id, claimed_by, attempts, possible_duplicate, next_attempt_at, accepted_at, updated_at)
       VALUES ($1, 1, 10, 'stream-10', 2, 'sms', 'ACME', '+4915100000000', 'DE', 'stuck', 'GSM7', 1, 50000, 'EUR', 'accepted', $2, CASE WHEN $2 = 'queued' THEN $2 END, $3, $4, 1, $5,
         now() - $6 * interval '1 millisecond', now() - $7 * interval '1 millisecond', now() - $7 * interval '1 millisecond') RETURNING id, send_state, claimed_by)
       ${CLAIM_ROW}`,
      [uuid, o.sendState, o.sendState === 'submitting' ? randomUUID() : null, o.claimedBy ?? null, o.flagged ?? false, o.dueAgoMs ?? o.untouchedMs, o.untouchedMs],
    );
    return uuid;
  }

  const row = async (uuid: string) => (await d.sql(`SELECT status, send_state, possible_duplicate, claimed_by, attempt_id, error FROM dispatch.message WHERE uuid = $1`, [uuid]))[0];
  const eventsOf = (type: string, uuid: string) => d.events(type).filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid);

  it('queues again, flagged, a message a live dispatcher left submitting past the limit, and leaves a recent one alone', async () => {
    const stuck = await plant({ sendState: 'submitting', untouchedMs: 120_000, claimedBy: d.dispatcher.instanceId });
    const recent = await plant({ sendState: 'submitting', untouchedMs: 1000, claimedBy: d.dispatcher.instanceId });

    await sweeper.sweepOnce();

    expect(await row(stuck)).toMatchObject({ status: 'accepted', send_state: 'queued', possible_duplicate: true, claimed_by: null, attempt_id: null });
    expect(await row(recent)).toMatchObject({ status: 'accepted', send_state: 'submitting', possible_duplicate: false });
    // Once: a second sweep finds it queued and recently touched.
    expect(await sweeper.sweepOnce()).toEqual({ resumed: 0, failed: 0 });
    await d.sql(`UPDATE dispatch.message SET send_state = 'done', queue_state = NULL, status = 'sent_failed' WHERE uuid = ANY($1)`, [[stuck, recent]]);
  });

  it('fails with one refund a message queued and untouched past the limit; not one scheduled for later, nor one deferred recently', async () => {
    const stuck = await plant({ sendState: 'queued', untouchedMs: 7_200_000 });
    const flagged = await plant({ sendState: 'queued', untouchedMs: 7_200_000, flagged: true });
    const scheduled = await plant({ sendState: 'queued', untouchedMs: 7_200_000, dueAgoMs: -600_000 });
    const deferred = await plant({ sendState: 'queued', untouchedMs: 5_000 });

    expect(await sweeper.sweepOnce()).toEqual({ resumed: 0, failed: 2 });
    await d.flushOutbox();

    expect(await row(stuck)).toMatchObject({ status: 'sent_failed', send_state: 'done', error: expect.stringContaining('STUCK') });
    expect(d.statusChanges().filter((e) => (e.data as { messageUuid: string }).messageUuid === stuck).map((e) => (e.data as { status: string }).status)).toEqual(['sent_failed']);
    expect(eventsOf(MessageRefundDueV1.type, stuck).map((e) => e.data)).toEqual([expect.objectContaining({ amountMicros: 50000, reason: 'stuck' })]);
    // It may have reached the provider: failed, not refunded.
    expect(await row(flagged)).toMatchObject({ status: 'sent_failed' });
    expect(eventsOf(MessageRefundDueV1.type, flagged)).toEqual([]);
    expect(await row(scheduled)).toMatchObject({ status: 'accepted', send_state: 'queued' });
    expect(await row(deferred)).toMatchObject({ status: 'accepted', send_state: 'queued' });
    await d.sql(`UPDATE dispatch.message SET send_state = 'done', queue_state = NULL, status = 'sent_failed' WHERE uuid = ANY($1)`, [[scheduled, deferred]]);
  });

  it('acts on each stuck message exactly once when two replicas sweep at the same time', async () => {
    const failing = await Promise.all(Array.from({ length: 120 }, () => plant({ sendState: 'queued', untouchedMs: 7_200_000 })));
    const resuming = await Promise.all(Array.from({ length: 80 }, () => plant({ sendState: 'submitting', untouchedMs: 120_000, claimedBy: d.dispatcher.instanceId })));

    const [a, b] = await Promise.all([sweeper.sweepOnce(), replica.sweepOnce()]);
    await d.flushOutbox();

    expect(a.failed + b.failed).toBe(120);
    expect(a.resumed + b.resumed).toBe(80);
    const refunds = d.events(MessageRefundDueV1.type).map((e) => (e.data as { messageUuid: string }).messageUuid).filter((u) => failing.includes(u));
    expect(refunds.sort()).toEqual([...failing].sort());
    const queued = await d.sql<{ n: number }>(`SELECT count(*)::int AS n FROM dispatch.message WHERE uuid = ANY($1) AND send_state = 'queued' AND possible_duplicate`, [resuming]);
    expect(queued).toEqual([{ n: 80 }]);
  });
});
