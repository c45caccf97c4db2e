import { randomUUID } from 'node:crypto';
import { SmppPeer } from '../src';
import { smppVendor, startDispatch, type DispatchTestApp } from './support';

/** A claimed message has its claim row (docs/decisions/0206), written with the claim as the dispatcher writes it. */
const CLAIM_ROW = `INSERT INTO dispatch.message_claim (message_id, claimed_by) SELECT id, claimed_by FROM m WHERE send_state = 'submitting'`;

describe('crash safety: nothing lost, no blind resends', () => {
  let peer: SmppPeer;
  let d: DispatchTestApp;
  const silent = new Set<string>();
  const silentOnce = new Set<string>();

  beforeAll(async () => {
    peer = new SmppPeer({ silentFor: silent, silentOnceFor: silentOnce });
    const port = await peer.listen();
    d = await startDispatch({ seedVendors: [smppVendor(port, { submitTimeoutMs: 150 })] });
    await d.until(() => peer.binds > 0);
  });

  afterAll(async () => {
    await d.close();
    await peer.close();
  });

  const submitsTo = (dest: string) => peer.parts.filter((p) => p.destination === dest).length;

  it('resends a message a dead dispatcher left `submitting`, once, flagged possible_duplicate', async () => {
    const uuid = randomUUID();
    const deadInstance = randomUUID();
    await d.sql(
      `WITH m AS (INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, encoding, segments,
         currency, status, send_state, attempt_id, claimed_by, attempts, next_attempt_at, accepted_at)
       VALUES ($1, 1, 10, 'stream-10', 2, 'sms', 'ACME', '+4915199990001', 'DE', 'left in flight', 'GSM7', 1, 'EUR', 'accepted', 'submitting', $2, $3, 1, now(), now()) RETURNING id, send_state, claimed_by)
       ${CLAIM_ROW}`,
      [uuid, randomUUID(), deadInstance],
    );
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row.possible_duplicate).toBe(true);
    expect(submitsTo('4915199990001')).toBe(1);
    await d.flushOutbox();
    const events = d.statusChanges().filter((e) => (e.data as { messageUuid: string }).messageUuid === uuid);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => (e.data as { possibleDuplicate?: boolean }).possibleDuplicate === true)).toBe(true);
  });

  it('leaves alone what a live dispatcher is sending', async () => {
    const uuid = randomUUID();
    await d.sql(
      `WITH m AS (INSERT INTO dispatch.message (uuid, account_id, stream_id, stream_uid, stream_type, channel, sender, destination, iso2, body, encoding, segments,
         currency, status, send_state, attempt_id, claimed_by, attempts, next_attempt_at, accepted_at)
       VALUES ($1, 1, 10, 'stream-10', 2, 'sms', 'ACME', '+4915199990002', 'DE', 'owned', 'GSM7', 1, 'EUR', 'accepted', 'submitting', $2, $3, 1, now(), now()) RETURNING id, send_state, claimed_by)
       ${CLAIM_ROW}`,
      [uuid, randomUUID(), d.dispatcher.instanceId],
    );
    // several recovery sweeps later it is still the live owner's
    await new Promise((r) => setTimeout(r, 550));
    const [row] = await d.sql(`SELECT send_state, possible_duplicate FROM dispatch.message WHERE uuid = $1`, [uuid]);
    expect(row).toEqual({ send_state: 'submitting', possible_duplicate: false });
  });

  it('resends an unanswered submit once, flagged, and then follows it to delivered', async () => {
    silentOnce.add('4915199990003');
    const uuid = await d.accept({ destination: '+4915199990003' });
    const row = await d.untilStatus(uuid, 'delivered');
    expect(row).toMatchObject({ possible_duplicate: true, unknown_attempts: 1 });
  });

  it('never tries a third time after two unanswered submits: sent_failed, not refunded', async () => {
    silent.add('4915199990004');
    const uuid = await d.accept({ destination: '+4915199990004' });
    const row = await d.untilStatus(uuid, 'sent_failed');
    expect(row).toMatchObject({ possible_duplicate: true, unknown_attempts: 1, attempts: 2 });
    expect(String(row.error)).toContain('no answer from the provider twice');
  });
});
