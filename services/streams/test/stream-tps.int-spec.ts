import { StreamCreatedV1, StreamUpdatedV1, type EventEnvelope, type StreamSnapshot } from '@switchboard/contracts';
import { startStreams, type Json, type StreamsTestApp } from './support';

/** A stream's own sending rate (`params.tps`): validated, kept, and carried to dispatch in the stream's snapshot events. */
describe('stream TPS', () => {
  let a: StreamsTestApp;
  const ACC = '61';
  let token: string;

  /** The latest snapshot event of a stream, checked against the contract's schema. */
  const lastSnapshot = async (streamId: number): Promise<{ type: string; data: StreamSnapshot; count: number }> => {
    const mine = (await a.events()).filter((e: EventEnvelope) => (e.type === StreamCreatedV1.type || e.type === StreamUpdatedV1.type) && (e.data as StreamSnapshot).streamId === String(streamId));
    const e = mine[mine.length - 1];
    return { type: e.type, data: StreamUpdatedV1.schema.parse(e.data), count: mine.length };
  };

  beforeAll(async () => {
    a = await startStreams();
    await a.account(ACC, { tps: 500 });
    token = a.member(ACC);
  });
  afterAll(async () => {
    await a?.close();
  });

  it('keeps a TPS given at creation and sends it with the stream created event', async () => {
    const res = await a.call('POST', '/streams', { token, body: { name: 'alerts', streamType: 2, params: { tps: 50 } } });
    expect(res.status).toBe(201);
    expect(res.body.params.tps).toBe(50);
    expect(await lastSnapshot(res.body.id)).toMatchObject({ type: StreamCreatedV1.type, data: { tps: 50, accountId: ACC } });
  });

  it('sends 0 (no limit of its own) for a stream created without one', async () => {
    const res = await a.call('POST', '/streams', { token, body: { name: 'bulk', streamType: 1, params: { tps: '' } } });
    expect(res.status).toBe(201);
    expect(res.body.params).not.toHaveProperty('tps');
    expect((await lastSnapshot(res.body.id)).data.tps).toBe(0);
  });

  it('changes, keeps and removes the TPS on update, each time in the stream updated event', async () => {
    const { body: s } = await a.call('POST', '/streams', { token, body: { name: 'otp', streamType: 3, params: { tps: 10 } } });
    const update = (body: Json) => a.call('PUT', `/streams/${s.id}`, { token, body });

    const raised = await update({ params: { tps: '120' } });
    expect(raised.status).toBe(200);
    expect(raised.body.params.tps).toBe(120);
    expect((await lastSnapshot(s.id)).data.tps).toBe(120);

    // an update that does not name it keeps it, including a status change
    const disabled = await update({ status: -1, name: 'otp (paused)' });
    expect(disabled.body.params.tps).toBe(120);
    expect((await lastSnapshot(s.id)).data).toMatchObject({ tps: 120, status: -1 });

    const removed = await update({ params: { tps: null } });
    expect(removed.body.params).not.toHaveProperty('tps');
    // the OTP settings are untouched
    expect(removed.body.params).toMatchObject({ code_length: 5, ttl: 300 });
    expect((await lastSnapshot(s.id)).data.tps).toBe(0);
  });

  it('refuses a TPS that is not a whole number from 1 to 100000 with 0x1 on params.tps, and changes nothing', async () => {
    const { body: s } = await a.call('POST', '/streams', { token, body: { name: 'checked', streamType: 2, params: { tps: 5 } } });
    const events = (await lastSnapshot(s.id)).count;
    for (const tps of [0, -1, 1.5, '12a', '1e3', true, 100_001, {}, [5]]) {
      for (const res of [
        await a.call('PUT', `/streams/${s.id}`, { token, body: { params: { tps } } }),
        await a.call('POST', '/streams', { token, body: { name: 'refused', streamType: 2, params: { tps } } }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('0x1');
        expect(res.body.violations).toEqual([{ propertyPath: 'params.tps', message: 'tps must be an integer from 1 to 100000' }]);
      }
    }
    expect((await a.call('GET', `/streams/${s.id}`, { token })).body.params.tps).toBe(5);
    expect((await lastSnapshot(s.id)).count).toBe(events);
    const refused = await a.sql(`SELECT 1 FROM streams.stream WHERE account_id = $1 AND name = 'refused'`, [ACC]);
    expect(refused).toHaveLength(0);
  });

  it('accepts the highest TPS, on every stream type', async () => {
    for (const streamType of [1, 2, 3, 4, 5, 7, 8]) {
      const res = await a.call('POST', '/streams', { token, body: { name: `max ${streamType}`, streamType, params: { tps: 100_000 } } });
      expect(res.status).toBe(201);
      expect(res.body.params.tps).toBe(100_000);
    }
  });
});
