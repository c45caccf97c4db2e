import { neverReached, UpstreamPool } from './upstreams';

describe('UpstreamPool', () => {
  const hosts = (urls: URL[]) => urls.map((u) => u.host);

  it('takes turns over the replicas that are up', () => {
    const pool = new UpstreamPool('http://a:1|http://b:1|http://c:1');
    expect([pool.order()[0], pool.order()[0], pool.order()[0], pool.order()[0]].map((u) => u.host)).toEqual(['a:1', 'b:1', 'c:1', 'a:1']);
  });

  it('puts a replica marked down last, for one second, then longer on each failure, and back once it answers', () => {
    let now = 1_000_000;
    const pool = new UpstreamPool('http://a:1|http://b:1', 1000, () => now);
    const [a] = pool.order();
    pool.markDown(a);
    expect(hosts(pool.order())).toEqual(['b:1', 'a:1']);
    expect(hosts(pool.order())).toEqual(['b:1', 'a:1']);
    now += 1001;
    expect(pool.isDown(a)).toBe(false);
    pool.markDown(a); // second failure in a row: two seconds
    now += 1500;
    expect(pool.isDown(a)).toBe(true);
    now += 600;
    expect(pool.isDown(a)).toBe(false);
    pool.markDown(a);
    pool.markUp(a);
    expect(pool.isDown(a)).toBe(false);
    pool.close();
  });

  it('still offers every replica when all are down, the one down longest first', () => {
    let now = 5000;
    const pool = new UpstreamPool('http://a:1|http://b:1|http://c:1', 1000, () => now);
    const [a, b, c] = pool.urls;
    pool.markDown(b);
    now += 10;
    pool.markDown(c);
    now += 10;
    pool.markDown(a);
    expect(hosts(pool.order())).toEqual(['b:1', 'c:1', 'a:1']);
    pool.close();
  });

  it('retries elsewhere only what never reached a replica', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(neverReached(err('ECONNREFUSED'), false)).toBe(true);
    expect(neverReached(err('ENOTFOUND'), false)).toBe(true);
    expect(neverReached(err('ECONNRESET'), false)).toBe(true);
    // once connected, the replica may have acted on the request
    expect(neverReached(err('ECONNRESET'), true)).toBe(false);
    expect(neverReached(err('EPIPE'), true)).toBe(false);
  });
});
