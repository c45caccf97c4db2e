import { randomUUID } from 'node:crypto';
import { phone, startStreams, type Answer, type StreamsTestApp } from './support';

/**
 * Issue 17: "the stream API's TPS answer (0x31) holds ... with 1, 2 or 3 replicas of streams". Two streams replicas on
 * one database and one frozen clock (each with its own process state and bus), sends alternating between them as the
 * gateway's round robin would: with buckets per process each replica accepted the whole rate (twice the rate in all);
 * the shared buckets in PostgreSQL (docs/decisions/0067) hold the two together to it.
 */
describe('the stream API TPS across streams replicas', () => {
  let a: StreamsTestApp;
  let b: StreamsTestApp;
  const ok = (n = 0) => ({ phone: phone(n), message: `hello ${randomUUID()}` });

  beforeAll(async () => {
    a = await startStreams({ sharedTps: true });
    b = await startStreams({ sharedTps: true }, undefined, a);
  }, 60_000);

  afterAll(async () => {
    await b?.close();
    await a?.close();
  }, 60_000);

  /** `n` sends, the odd ones through the second replica; the answers' codes per replica. */
  const alternate = async (token: string, n: number) => {
    const answers: Array<{ via: 'a' | 'b'; r: Answer }> = [];
    for (let i = 0; i < n; i++) {
      const via = i % 2 ? 'b' : 'a';
      answers.push({ via, r: await (via === 'a' ? a : b).send(token, ok(i)) });
    }
    const accepted = (via: 'a' | 'b') => answers.filter((x) => x.via === via && x.r.status === 202).length;
    const codes = [...new Set(answers.filter((x) => x.r.status !== 202).map((x) => `${x.r.status} ${String(x.r.body.code)}`))];
    return { a: accepted('a'), b: accepted('b'), total: accepted('a') + accepted('b'), codes };
  };

  it("holds an account's TPS across two replicas, each taking part, and refills it with time", async () => {
    await a.account('801', { tps: 4, balance: 10_000_000, prices: { US: 10 } });
    const st = await a.stream('801');
    // both replicas know the stream (the second reads it from the shared database)
    expect((await b.send(st.token, { phone: 'bad' })).body.code).toBe('0x1');
    const first = await alternate(st.token, 12);
    expect(first).toEqual({ a: 2, b: 2, total: 4, codes: ['429 0x31'] });
    a.clock.advance(500);
    expect((await alternate(st.token, 6)).total).toBe(2);
    a.clock.advance(1000);
    expect((await alternate(st.token, 8)).total).toBe(4);
  }, 180_000);

  it("holds a stream's own TPS across two replicas (0x31)", async () => {
    await a.account('802', { tps: 1000, balance: 10_000_000, prices: { US: 10 } });
    const slow = await a.stream('802', { params: { tps: 2 } });
    expect(await alternate(slow.token, 6)).toEqual({ a: 1, b: 1, total: 2, codes: ['429 0x31'] });
  }, 180_000);

  it('gives the tokens a replica took ahead back to the shared bucket, so the other replica gets the whole rate', async () => {
    // at 40/s a replica takes a twentieth of the rate ahead of its sends (2 tokens) and keeps them 200 ms
    await a.account('803', { tps: 40, balance: 10_000_000, prices: { US: 10 } });
    const st = await a.stream('803');
    expect((await a.send(st.token, ok())).status).toBe(202);
    const tokens = async () => Number((await a.sql<{ tokens: number }>(`SELECT tokens FROM streams.tps_bucket WHERE key = 'a:803'`))[0]?.tokens);
    const end = Date.now() + 30_000;
    while ((await tokens()) !== 39 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await tokens()).toBe(39);
    let accepted = 0;
    for (let i = 0; i < 42; i++) if ((await b.send(st.token, ok(i))).status === 202) accepted++;
    expect(accepted).toBe(39);
  }, 180_000);
});
