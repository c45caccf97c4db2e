import { StreamUpdatedV1 } from '@switchboard/contracts';
import { InboundBackfillService } from '../src/services/inbound-backfill.service';
import { startStreams, type StreamsTestApp } from './support';

const A = '711';

/**
 * Streams whose own rate was set before the stream events carried it (docs/decisions/0017, 0047): dispatch learnt the
 * rate only at the stream's next change. The migration marks them; the backfill at start sends each one's snapshot,
 * with its rate, once.
 */
describe('per-stream TPS backfill for dispatch', () => {
  let a: StreamsTestApp;

  beforeAll(async () => {
    a = await startStreams();
    await a.account(A);
  });

  afterAll(async () => {
    await a.close();
  });

  it('sends the snapshot of every stream with a rate of its own once, with the rate, and nothing for the others', async () => {
    const paced = await a.call('POST', '/streams', { token: a.member(A), body: { name: 'paced', streamType: 2, params: { tps: 15 } } });
    const plain = await a.call('POST', '/streams', { token: a.member(A), body: { name: 'plain', streamType: 2 } });
    expect([paced.status, plain.status]).toEqual([201, 201]);
    // the state the migration (1796650000000) leaves behind: the streams that have a rate are marked
    await a.sql(`UPDATE streams.stream SET tps_backfill = true WHERE deleted_at IS NULL AND params ? 'tps'`);
    expect(await a.sql(`SELECT id::text FROM streams.stream WHERE tps_backfill AND account_id = $1`, [A])).toEqual([{ id: String(paced.body.id) }]);

    const before = (await a.events()).length;
    await a.t.app.get(InboundBackfillService).run();
    await a.t.app.get(InboundBackfillService).run();
    const sent = (await a.events()).slice(before).filter((e) => e.type === StreamUpdatedV1.type).map((e) => StreamUpdatedV1.schema.parse(e.data));
    expect(sent).toEqual([expect.objectContaining({ streamId: String(paced.body.id), accountId: A, tps: 15 })]);
    expect(await a.sql(`SELECT count(*)::int AS n FROM streams.stream WHERE tps_backfill`)).toEqual([{ n: 0 }]);
  });
});
