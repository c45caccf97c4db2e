import { Logger } from '@nestjs/common';
import { LinkBatchMintedV1, LinkClickedV1, LinkClicksRecordedV1, Topics } from '@switchboard/contracts';
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { CuttableLink } from '@switchboard/platform/testing';
import { Pool } from 'pg';
import { CodeCipher, decodeCode } from '../src/mint/codes';
import { ClickRecorder, encodeClicks, GroupCommitter, type Click, type ClickChunk, type ClickGroupRow, type CompactClick } from '../src/redirect/click-recorder';
import { clickGroupBytes, unpackClickGroupV2 } from '../src/redirect/click-events';
import { LinkStore } from '../src/redirect/link-store';
import { arrayBodyValues } from '../src/redirect/pg-binary-array';
import { redirectPool } from '../src/redirect/redirect-pool';
import { RedirectServer } from '../src/redirect/redirect-server';
import { LinksOutboxRelay } from '../src/services/links-events.service';
import { batch, CODE_SECRET, shortUrl, split, startLinks, waitFor, type LinksTestApp } from './redirect-support';

const A = '101';
const B = '202';

describe('redirect server', () => {
  let l: LinksTestApp;
  let domA: string;
  let domB: string;

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    l = await startLinks();
    domA = await l.domain(A, 'go.shop-a.test');
    domB = await l.domain(B, 'go.shop-b.test');
  }, 60_000);

  afterAll(async () => {
    await l?.close();
    jest.restoreAllMocks();
  });

  const drain = () => l.redirect.running!.clicks.drain();

  it('answers 302 to the target with each recipient variable URL-encoded, never letting a variable change the scheme or host', async () => {
    const req = batch(A, [shortUrl({ url: 'https://shop-a.example/p?name={firstName}&c={city}#x', domainIds: [domA] })], 3, (i) =>
      [{ firstName: 'Zoë & Co', city: 'São Paulo/?#' }, { firstName: 'a@evil.example', city: '//evil.example' }, { firstName: 'javascript:alert(1)', city: '%2F%2F' }][i],
    );
    const answer = await l.mint(req);
    expect(answer.outcome).toBe('minted');
    const locations: string[] = [];
    for (const ref of ['r0', 'r1', 'r2']) {
      const { host, path } = split(answer.links[ref].shorturl);
      expect(path).toMatch(/^\/[0-9A-Za-z]{7}$/);
      const r = await l.hit(host, path);
      expect(r.status).toBe(302);
      locations.push(r.headers.location!);
    }
    expect(locations[0]).toBe('https://shop-a.example/p?name=Zo%C3%AB%20%26%20Co&c=S%C3%A3o%20Paulo%2F%3F%23#x');
    expect(locations[1]).toBe('https://shop-a.example/p?name=a%40evil.example&c=%2F%2Fevil.example#x');
    expect(locations[2]).toBe('https://shop-a.example/p?name=javascript%3Aalert(1)&c=%252F%252F#x');
    for (const loc of locations) expect(new URL(loc).host).toBe('shop-a.example');
  });

  it('refuses (400, no redirect) a target whose scheme or host would come from a variable', async () => {
    // the batch is refused at minting when the URL's origin holds a variable
    const refused = await l.mint(batch(A, [shortUrl({ url: '{site}/landing', domainIds: [domA] })], 1, () => ({ site: 'https://evil.example' })));
    expect(refused.outcome).toBe('offer_unavailable');
    // an offer edited afterwards to take its host from a variable: the links already sent answer 400, not a redirect
    const offer = await l.offer(A, 'https://shop-a.example/o/{id}');
    const answer = await l.mint(batch(A, [shortUrl({ offerId: offer, domainIds: [domA] })], 1, () => ({ id: '1', host: 'evil.example' })));
    await l.sql(`UPDATE links.offer SET original_url = 'https://{host}/o/{id}' WHERE id = $1`, [offer]);
    l.redirect.running!.store.clear();
    const { host, path } = split(answer.links.r0.shorturl);
    const r = await l.hit(host, path);
    expect(r.status).toBe(400);
    expect(r.headers.location).toBeUndefined();
    expect(r.body).toContain('cannot be opened');
  });

  it('answers 404 for unknown codes and hosts, 410 for expired links and disabled or expired offers, never a redirect', async () => {
    const { host } = split((await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/', domainIds: [domA] })], 1))).links.r0.shorturl);
    for (const path of ['/0000000', '/zzzzzzz', '/abc', '/abcdefgh', '/', '/favicon.ico']) {
      const r = await l.hit(host, path);
      expect(r.status).toBe(404);
      expect(r.headers.location).toBeUndefined();
    }
    const live = split((await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/', domainIds: [domA] })], 1))).links.r0.shorturl);
    expect((await l.hit('unknown.example', live.path)).status).toBe(404);

    const disabled = await l.offer(A, 'https://shop-a.example/d');
    const dl = split((await l.mint(batch(A, [shortUrl({ offerId: disabled, domainIds: [domA] })], 1))).links.r0.shorturl);
    expect((await l.hit(dl.host, dl.path)).status).toBe(302);
    await l.sql(`UPDATE links.offer SET disabled = true WHERE id = $1`, [disabled]);
    l.redirect.running!.store.clear();
    const gone = await l.hit(dl.host, dl.path);
    expect(gone.status).toBe(410);
    expect(gone.headers.location).toBeUndefined();

    // an offer that expires 1 day after its creation, created 2 days ago: expired (minting refuses it too)
    const old = await l.offer(A, 'https://shop-a.example/old', { expireInDays: 1, method: 'offer_creation', createdAt: new Date(Date.now() - 2 * 86_400_000) });
    expect((await l.mint(batch(A, [shortUrl({ offerId: old, domainIds: [domA] })], 1))).outcome).toBe('offer_unavailable');
    const fresh = await l.offer(A, 'https://shop-a.example/fresh', { expireInDays: 1, method: 'offer_creation' });
    const fl = split((await l.mint(batch(A, [shortUrl({ offerId: fresh, domainIds: [domA] })], 1))).links.r0.shorturl);
    expect((await l.hit(fl.host, fl.path)).status).toBe(302);
    await l.sql(`UPDATE links.offer SET created_at = now() - interval '2 days' WHERE id = $1`, [fresh]);
    l.redirect.running!.store.clear();
    expect((await l.hit(fl.host, fl.path)).status).toBe(410);

    // the link's own expiry (the variable's `expired` days)
    const el = split((await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/e', domainIds: [domA], expireInDays: 3 })], 1))).links.r0.shorturl);
    expect((await l.hit(el.host, el.path)).status).toBe(302);
    await l.sql(`UPDATE links.link_range SET expires_at = now() - interval '1 second' WHERE expires_at IS NOT NULL`);
    l.redirect.running!.store.clear();
    expect((await l.hit(el.host, el.path)).status).toBe(410);
  });

  it("never resolves a code under another account's host, nor under an unclaimed or blocked domain", async () => {
    const a = split((await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/', domainIds: [domA] })], 1))).links.r0.shorturl);
    const b = split((await l.mint(batch(B, [shortUrl({ url: 'https://shop-b.example/', domainIds: [domB] })], 1))).links.r0.shorturl);
    expect((await l.hit(a.host, a.path)).headers.location).toBe('https://shop-a.example/');
    expect((await l.hit(b.host, b.path)).headers.location).toBe('https://shop-b.example/');
    expect((await l.hit(a.host, b.path)).status).toBe(404);
    expect((await l.hit(b.host, a.path)).status).toBe(404);
    // account B cannot mint on account A's domain
    expect((await l.mint(batch(B, [shortUrl({ url: 'https://shop-b.example/', domainIds: [domA] })], 1))).outcome).toBe('no_valid_domain');
    // the same name claimed by nobody (pending verification in B) resolves nothing
    await l.domain(B, 'go.pending-b.test', { claimed: false, state: 2 });
    expect((await l.hit('go.pending-b.test', b.path)).status).toBe(404);
  });

  it('counts a person, not previews, prefetches or HEAD: all redirected, all recorded, only the person counted, first click apart', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/c', domainIds: [domA] })], 2, () => ({}), '55'));
    const { host, path } = split(answer.links.r0.shorturl);
    const previews: Array<{ method?: string; headers?: Record<string, string> }> = [
      { method: 'HEAD' },
      { headers: { purpose: 'prefetch' } },
      { headers: { 'sec-purpose': 'prefetch;prerender' } },
      { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } },
      { headers: { 'user-agent': 'TelegramBot (like TwitterBot)' } },
      { headers: { 'user-agent': 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' } },
      { headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' } },
      { headers: { 'user-agent': 'Twitterbot/1.0' } },
      { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5' } },
      { headers: { 'user-agent': 'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)' } },
      { headers: { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0' } },
    ];
    for (const p of previews) {
      const r = await l.hit(host, path, p);
      expect(r.status).toBe(302);
    }
    await drain();
    // summed over the campaign's variants and domains
    const campaignStats = () =>
      l.sql(`SELECT sum(clicks)::text AS clicks, sum(first_clicks)::text AS first_clicks, sum(preview_clicks)::text AS preview_clicks FROM links.click_stats WHERE campaign_id = 55`);
    let stats = await campaignStats();
    expect(stats).toEqual([{ clicks: '0', first_clicks: '0', preview_clicks: String(previews.length) }]);

    // the person, twice, then another recipient once
    expect((await l.hit(host, path)).status).toBe(302);
    expect((await l.hit(host, path, { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0' } })).status).toBe(302);
    const other = split(answer.links.r1.shorturl);
    expect((await l.hit(other.host, other.path)).status).toBe(302);
    await drain();
    stats = await campaignStats();
    expect(stats).toEqual([{ clicks: '3', first_clicks: '2', preview_clicks: String(previews.length) }]);
    // clicks in the same millisecond tie on clicked_at: the first click is the earliest to arrive, whatever the clock says
    const rows = await l.sql<{ preview: boolean; first: boolean; ua_class: number; code: string }>(`SELECT preview, first, ua_class, code::text FROM links.click WHERE campaign_id = 55`);
    expect(rows.filter((r) => r.preview)).toHaveLength(previews.length);
    const counted = rows.filter((r) => !r.preview);
    // the person's first click was the one without a user agent (mobile, 2), the Chrome one (desktop, 1) came second
    expect(counted.filter((r) => r.first).map((r) => r.ua_class)).toEqual([2, 2]);
    expect(counted.filter((r) => !r.first).map((r) => r.ua_class)).toEqual([1]);
    expect(new Set(counted.filter((r) => r.first).map((r) => r.code)).size).toBe(2);
    // each recipient's first click once; how many times they clicked is their counted rows (docs/decisions/0104)
    const recipients = await l.sql<{ clicks: string }>(
      `SELECT (SELECT count(*) FROM links.click c WHERE c.account_id = r.account_id AND c.message_uuid = r.message_uuid AND NOT c.preview)::text AS clicks
         FROM links.recipient_click r WHERE r.campaign_id = 55 ORDER BY 1 DESC`,
    );
    expect(recipients.map((r) => r.clicks)).toEqual(['2', '1']);

    // the bus hears the counted clicks only, batched, the first ones marked
    const announced = () => l.events(LinkClicksRecordedV1.type).flatMap((e) => LinkClicksRecordedV1.schema.parse(e.data).clicks).filter((c) => c.campaignId === '55');
    await waitFor(() => announced().length >= 3);
    const clicks = announced();
    expect(clicks).toHaveLength(3);
    expect(clicks.filter((c) => c.first)).toHaveLength(2);
    // each recipient's first click also as links.link.clicked, under the click's id (campaigns counts clickers from it)
    await waitFor(() => l.events(LinkClickedV1.type).filter((e) => (e.data as { campaignId: string }).campaignId === '55').length >= 2);
    const singles = l.events(LinkClickedV1.type).filter((e) => (e.data as { campaignId: string }).campaignId === '55');
    expect(singles.map((e) => e.id).sort()).toEqual(clicks.filter((c) => c.first).map((c) => c.clickId).sort());
    expect(LinkClickedV1.schema.parse(singles[0].data)).toMatchObject({ accountId: A, campaignId: '55', originalUrl: 'https://shop-a.example/c' });
    expect(clicks[0]).toMatchObject({ shortUrl: answer.links.r0.shorturl, originalUrl: 'https://shop-a.example/c', domainId: domA, uaClass: 'mobile' });
  });

  it('writes a recipient’s first-click row once: repeat clicks, in later groups or the same one, leave it as it was and are counted from their rows', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/again', domainIds: [domA] })], 2, () => ({}), '58'));
    const one = split(answer.links.r0.shorturl);
    const two = split(answer.links.r1.shorturl);
    expect((await l.hit(one.host, one.path)).status).toBe(302);
    await drain();
    const version = () =>
      l.sql<{ v: string; first: string }>(`SELECT xmin::text AS v, first_click_id::text AS first FROM links.recipient_click WHERE campaign_id = 58 ORDER BY first_clicked_at`);
    const before = await version();
    expect(before).toHaveLength(1);
    // a later group: the same recipient twice more, another recipient twice in one group, a preview of the first
    for (const [p, headers] of [
      [one, {}],
      [two, {}],
      [two, {}],
      [one, { 'user-agent': 'WhatsApp/2.23.20.0 A' }],
      [one, {}],
    ] as const) expect((await l.hit(p.host, p.path, { headers })).status).toBe(302);
    await drain();
    const after = await version();
    // the first recipient's row is the same row version (no update wrote a new one); the second has one row
    expect(after).toHaveLength(2);
    expect(after[0]).toEqual(before[0]);
    const counts = await l.sql<{ first: string; clicks: string; firsts: string }>(
      `SELECT r.first_click_id::text AS first,
              (SELECT count(*) FROM links.click c WHERE c.account_id = r.account_id AND c.message_uuid = r.message_uuid AND NOT c.preview)::text AS clicks,
              (SELECT count(*) FROM links.click c WHERE c.account_id = r.account_id AND c.message_uuid = r.message_uuid AND c.first)::text AS firsts
         FROM links.recipient_click r WHERE r.campaign_id = 58 ORDER BY r.first_clicked_at`,
    );
    expect(counts.map((c) => [c.clicks, c.firsts])).toEqual([
      ['3', '1'],
      ['2', '1'],
    ]);
    const [stats] = await l.sql(`SELECT sum(clicks)::text AS clicks, sum(first_clicks)::text AS first_clicks, sum(preview_clicks)::text AS preview_clicks FROM links.click_stats WHERE campaign_id = 58`);
    expect(stats).toEqual({ clicks: '5', first_clicks: '2', preview_clicks: '1' });
  });

  it('stores and announces each click’s user agent as sent, quotes, backslashes and non-ASCII included', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/ua', domainIds: [domA] })], 2, () => ({}), '67'));
    const odd = 'Odd "quoted" \\ agent/1.0 (Mobile; ü) {x},y';
    const plain = 'Mozilla/5.0 (Linux; Android 14) Mobile';
    const agents = [odd, plain, odd];
    for (const [i, ua] of agents.entries()) {
      const { host, path } = split(answer.links[`r${i % 2}`].shorturl);
      expect((await l.hit(host, path, { headers: { 'user-agent': ua } })).status).toBe(302);
    }
    await drain();
    const rows = await l.sql<{ user_agent: string }>(`SELECT user_agent FROM links.click WHERE campaign_id = 67 ORDER BY clicked_at`);
    expect(rows.map((r) => r.user_agent).sort()).toEqual([...agents].sort());
    const announced = () => l.events(LinkClicksRecordedV1.type).flatMap((e) => LinkClicksRecordedV1.schema.parse(e.data).clicks).filter((c) => c.campaignId === '67');
    await waitFor(() => announced().length >= 3);
    expect(announced().map((c) => c.userAgent).sort()).toEqual([...agents].sort());
  });

  it('announces each click with its link’s fields as the link’s rows hold them, under the stored click’s id and time', async () => {
    const offer = await l.offer(A, 'https://shop-a.example/o/{sku}?q="x"');
    const req = batch(A, [shortUrl({ offerId: offer, domainIds: [domA] })], 2, (i) => ({ sku: i ? 'ü/1' : 'plain' }), '71');
    req.streamId = '5';
    req.items[1].destination = '+49 "151" \\ 1';
    req.items[1].contactId = null;
    const answer = await l.mint(req);
    const hits: Array<[string, Record<string, string>]> = [
      ['r0', { 'user-agent': 'Mozilla/5.0 (iPhone) "q" \\ Mobile' }],
      ['r1', { 'user-agent': 'Mozilla/5.0 (Linux; Android 14) Mobile' }],
      ['r1', {}],
    ];
    for (const [ref, headers] of hits) {
      const { host, path } = split(answer.links[ref].shorturl);
      expect((await l.hit(host, path, { headers })).status).toBe(302);
    }
    await drain();
    const announced = () => l.events(LinkClicksRecordedV1.type).flatMap((e) => LinkClicksRecordedV1.schema.parse(e.data).clicks).filter((c) => c.campaignId === '71');
    await waitFor(() => announced().length >= 3);
    const rows = await l.sql<{ click_id: string; at: string; code: string; ip: string; user_agent: string | null; first: boolean }>(
      `SELECT click_id::text, to_char(clicked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at, code::text, ip, user_agent, first FROM links.click WHERE campaign_id = 71`,
    );
    const links = (await Promise.all(Object.values(answer.links).map((v) => l.linkOf(v.shorturl)))).map((k) => k!);
    expect(rows).toHaveLength(3);
    const clicks = announced();
    expect(clicks).toHaveLength(3);
    for (const c of clicks) {
      const row = rows.find((r) => r.click_id === c.clickId)!;
      expect(row).toBeDefined();
      const link = links.find((k) => k.code === row.code)!;
      const ref = Object.keys(answer.links).find((r) => decodeCode(split(answer.links[r].shorturl).path.slice(1)) === Number(row.code))!;
      expect(c).toEqual({
        clickId: row.click_id,
        linkId: `${domA}/${split(answer.links[ref].shorturl).path.slice(1)}`,
        shortUrl: answer.links[ref].shorturl,
        originalUrl: ref === 'r0' ? 'https://shop-a.example/o/plain?q=%22x%22' : 'https://shop-a.example/o/%C3%BC%2F1?q=%22x%22',
        domainId: domA,
        offerId: offer,
        campaignId: '71',
        variantId: link.variant_id,
        streamId: '5',
        contactId: link.contact_id,
        messageUuid: link.message_uuid,
        destination: link.destination,
        ip: row.ip,
        userAgent: row.user_agent,
        clickedAt: row.at,
        first: row.first,
        uaClass: 'mobile',
      });
    }
    expect(clicks.filter((c) => c.first)).toHaveLength(2);
    expect(new Set(clicks.map((c) => c.destination))).toEqual(new Set(['+4915112345000', '+49 "151" \\ 1']));
    // each first click also as links.link.clicked, with the same fields
    await waitFor(() => l.events(LinkClickedV1.type).filter((e) => (e.data as { campaignId: string }).campaignId === '71').length >= 2);
    for (const e of l.events(LinkClickedV1.type).filter((x) => (x.data as { campaignId: string }).campaignId === '71')) {
      const c = clicks.find((x) => x.clickId === e.id)!;
      expect(c.first).toBe(true);
      expect(e.key).toBe(c.linkId);
      expect(e.occurredAt).toBe(c.clickedAt);
      expect(LinkClickedV1.schema.parse(e.data)).toEqual({
        clickId: c.clickId,
        accountId: A,
        linkId: c.linkId,
        shortUrl: c.shortUrl,
        originalUrl: c.originalUrl,
        offerId: offer,
        campaignId: '71',
        streamId: '5',
        messageUuid: c.messageUuid,
        destination: c.destination,
        ip: c.ip,
        userAgent: c.userAgent,
        clickedAt: c.clickedAt,
      });
    }
    // the rollup's first-click delay is counted from the link's creation
    const [stats] = await l.sql<{ clicks: string; first_clicks: string; delay: string }>(
      `SELECT sum(clicks)::text AS clicks, sum(first_clicks)::text AS first_clicks, sum(first_click_delay_ms)::text AS delay FROM links.click_stats WHERE campaign_id = 71`,
    );
    expect(stats).toMatchObject({ clicks: '3', first_clicks: '2' });
    const [expected] = await l.sql<{ delay: string }>(
      `SELECT round(sum(extract(epoch FROM c.clicked_at - r.created_at) * 1000))::text AS delay FROM links.click c JOIN (SELECT DISTINCT campaign_id, created_at FROM links.link_range) r ON r.campaign_id = c.campaign_id WHERE c.campaign_id = 71 AND c.first`,
    );
    expect(Math.abs(Number(stats.delay) - Number(expected.delay))).toBeLessThanOrEqual(2);
  });

  it('commits the click groups handed in while a statement is in flight as one statement, each click with its own user agent (cluster workers share one group commit)', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/merge', domainIds: [domA] })], 4, () => ({}), '68'));
    const links = await Promise.all(['r0', 'r1', 'r2', 'r3'].map((r) => l.redirect.running!.store.loadLink(domA, decodeCode(split(answer.links[r].shorturl).path.slice(1)))));
    const click = (i: number, ua: string | null): Click => ({ link: links[i]!, codeText: split(answer.links[`r${i}`].shorturl).path.slice(1), host: split(answer.links[`r${i}`].shorturl).host, at: Date.now(), uaClass: 1, preview: false, ip: '127.0.0.1', userAgent: ua });
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      const committer = new GroupCommitter(pool, 'http');
      // the first starts a statement at once; the next two (each with its own user agents list) wait and go together
      await Promise.all([
        committer.commit(encodeClicks([click(0, 'first/1.0')])),
        committer.commit(encodeClicks([click(1, 'worker-a "x"'), click(2, null)])),
        committer.commit(encodeClicks([click(3, 'worker-b \\ ü')])),
      ]);
      expect(committer.stats).toEqual({ statements: 2, clicks: 4 });
    } finally {
      await pool.end();
    }
    const rows = await l.sql<{ code: string; user_agent: string | null }>(`SELECT code::text, user_agent FROM links.click WHERE campaign_id = 68`);
    const byCode = new Map(rows.map((r) => [r.code, r.user_agent]));
    expect(links.map((k) => byCode.get(String(k!.code)))).toEqual(['first/1.0', 'worker-a "x"', null, 'worker-b \\ ü']);
  });

  it('writes a group whose columns mix NULL and values across chunks (no campaign, variant or message; any address text) exactly as the clicks had them', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/nulls', domainIds: [domA] })], 2, () => ({}), '86'));
    const [with_, plain] = await Promise.all(['r0', 'r1'].map((r) => l.redirect.running!.store.loadLink(domA, decodeCode(split(answer.links[r].shorturl).path.slice(1)))));
    // a link of no campaign (as an inbox reply's): its ids NULL in the click row, campaign and variant 0 in the rollup
    const bare: Click['link'] = { ...plain!, campaignId: null, variantId: null, messageUuid: null, messageUuidBytes: undefined, eventValues: undefined };
    const click = (link: Click['link'], code: string, ip: string | null, preview = false): Click => ({ link, codeText: code, host: split(answer.links.r0.shorturl).host, at: Date.now(), uaClass: 3, preview, ip, userAgent: null });
    const codeOf = (r: string) => split(answer.links[r].shorturl).path.slice(1);
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      const committer = new GroupCommitter(pool, 'http', 200);
      await committer.commit(encodeClicks([click(with_!, codeOf('r0'), '10.0.0.1')]));
      // within the interval: the next two chunks go together, NULLs in one chunk's columns and values in the other's
      await Promise.all([
        committer.commit(encodeClicks([click(bare, codeOf('r1'), 'unknown, "x" {y}'), click(bare, codeOf('r1'), null, true)])),
        committer.commit(encodeClicks([click(with_!, codeOf('r0'), '2001:db8::1')])),
      ]);
      expect(committer.stats).toEqual({ statements: 2, clicks: 4 });
    } finally {
      await pool.end();
    }
    const rows = await l.sql<{ campaign_id: string | null; variant_id: string | null; message_uuid: string | null; ip: string | null; preview: boolean; ua_class: number; first: boolean }>(
      `SELECT campaign_id::text, variant_id::text, message_uuid::text, ip, preview, ua_class, first FROM links.click WHERE account_id = $1 AND domain_id = $2 AND code = ANY($3::bigint[]) ORDER BY clicked_at, ip NULLS LAST`,
      [A, domA, [with_!.code, plain!.code]],
    );
    expect(rows).toHaveLength(4);
    expect(rows.filter((r) => r.campaign_id === null)).toEqual([
      { campaign_id: null, variant_id: null, message_uuid: null, ip: 'unknown, "x" {y}', preview: false, ua_class: 3, first: false },
      { campaign_id: null, variant_id: null, message_uuid: null, ip: null, preview: true, ua_class: 3, first: false },
    ]);
    expect(rows.filter((r) => r.campaign_id === '86').map((r) => [r.message_uuid, r.ip, r.first])).toEqual(
      expect.arrayContaining([
        [with_!.messageUuid, '10.0.0.1', true],
        [with_!.messageUuid, '2001:db8::1', false],
      ]),
    );
    expect(await l.sql(`SELECT clicks::int, first_clicks::int, preview_clicks::int FROM links.click_stats WHERE account_id = $1 AND domain_id = $2 AND campaign_id = 0 AND variant_id = 0`, [A, domA])).toEqual([
      { clicks: 1, first_clicks: 0, preview_clicks: 1 },
    ]);
  });

  it('starts a click group statement at most once an interval: the groups handed in meanwhile wait and go together in one statement (its fixed cost paid once)', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/interval', domainIds: [domA] })], 3, () => ({}), '84'));
    const links = await Promise.all(['r0', 'r1', 'r2'].map((r) => l.redirect.running!.store.loadLink(domA, decodeCode(split(answer.links[r].shorturl).path.slice(1)))));
    const click = (i: number): Click => ({ link: links[i]!, codeText: split(answer.links[`r${i}`].shorturl).path.slice(1), host: split(answer.links[`r${i}`].shorturl).host, at: Date.now(), uaClass: 1, preview: false, ip: '127.0.0.1', userAgent: 'Interval/1.0' });
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      const committer = new GroupCommitter(pool, 'http', 300);
      const start = performance.now();
      await committer.commit(encodeClicks([click(0)]));
      // the first statement has ended; the next group waits for the interval, and the one after it joins it
      const second = committer.commit(encodeClicks([click(1)]));
      await new Promise((r) => setTimeout(r, 50));
      await Promise.all([second, committer.commit(encodeClicks([click(2)]))]);
      expect(committer.stats).toEqual({ statements: 2, clicks: 3 });
      expect(performance.now() - start).toBeGreaterThanOrEqual(300);
    } finally {
      await pool.end();
    }
    expect(await l.sql(`SELECT count(*)::int AS n FROM links.click WHERE campaign_id = 84`)).toEqual([{ n: 3 }]);
  });

  it('writes a first click’s fields once in its group’s outbox row; the relay announces it as links.link.clicked once, the same event when the row is published again', async () => {
    const a = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/once', domainIds: [domA] })], 2, () => ({}), '74'));
    const b = await l.mint(batch(B, [shortUrl({ url: 'https://shop-b.example/once', domainIds: [domB] })], 1, () => ({}), '74'));
    const urls: Array<[string, string]> = [
      [domA, a.links.r0.shorturl],
      [domA, a.links.r1.shorturl],
      [domB, b.links.r0.shorturl],
    ];
    const links = await Promise.all(urls.map(([d, u]) => l.redirect.running!.store.loadLink(d, decodeCode(split(u).path.slice(1)))));
    const click = (i: number, preview = false): Click => ({ link: links[i]!, codeText: split(urls[i][1]).path.slice(1), host: split(urls[i][1]).host, at: Date.now(), uaClass: 1, preview, ip: '127.0.0.1', userAgent: 'Once/1.0 "q"' });
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      // one group of two accounts: three first clicks, a repeat click and a preview
      await new GroupCommitter(pool, 'https').commit(encodeClicks([click(0), click(1), click(0), click(2), click(2, true)]));
    } finally {
      await pool.end();
    }
    const stored = await l.sql<{ click_id: string }>(`SELECT click_id::text FROM links.click WHERE campaign_id = 74 AND first`);
    expect(stored).toHaveLength(3);

    // time-ordered click ids (docs/decisions/0165), made with the row's text by the redirect
    for (const { click_id } of stored) expect(click_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // the group's outbox row: its recorded events only (one per account), counting the first clicks' events to come,
    // as values without their names or envelopes (docs/decisions/0159), made by the redirect; the statement adds the
    // first clicks' positions (docs/decisions/0165)
    const rows = await l.sql<{ id: string; type: string; key: string; packed: string }>(`SELECT id::text, type, key, packed FROM links.outbox WHERE packed LIKE '%' || $1 || '%'`, [stored[0].click_id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ type: '$links.click-group.2', key: '5' });
    const packed = JSON.parse(rows[0].packed) as Array<{ occurredAt: string; agents: string[]; events: Array<{ id: string; accountId: string; clicks: unknown[][] }>; firsts: number[] }>;
    expect(packed).toHaveLength(1);
    expect(packed[0].events.map((e) => [e.accountId, e.clicks.length])).toEqual([
      [A, 3],
      [B, 1],
    ]);
    // the first clicks: A's two links' first clicks and B's, not A's repeat click (position 2)
    expect(packed[0].firsts.sort()).toEqual([0, 1, 3]);
    expect(rows[0].packed).not.toContain('"clickId"');
    expect(rows[0].packed).not.toContain('"type"');
    for (const { click_id } of stored) expect(rows[0].packed.split(click_id)).toHaveLength(2);
    // the events it expands to stay within the bound the relay sizes its publish calls by
    const expanded = unpackClickGroupV2(JSON.parse(rows[0].packed) as never);
    expect(expanded.map((e) => e.type)).toEqual([LinkClicksRecordedV1.type, LinkClicksRecordedV1.type, LinkClickedV1.type, LinkClickedV1.type, LinkClickedV1.type]);
    expect(expanded.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0)).toBeLessThanOrEqual(clickGroupBytes(Buffer.byteLength(rows[0].packed), expanded));
    // the group's user agent once in the row, not once a click
    expect(rows[0].packed.split('Once/1.0')).toHaveLength(2);

    const relay = l.t.app.get(LinksOutboxRelay).relay;
    const ofGroup = (type: string) => l.events(type).filter((e) => JSON.stringify(e.data).includes('"campaignId":"74"'));
    await relay.flush();
    await waitFor(() => ofGroup(LinkClickedV1.type).length >= 3);
    const recorded = ofGroup(LinkClicksRecordedV1.type).flatMap((e) => LinkClicksRecordedV1.schema.parse(e.data).clicks.map((c) => ({ accountId: e.accountId!, c })));
    expect(recorded).toHaveLength(4);
    const clicked = ofGroup(LinkClickedV1.type);
    expect(clicked.map((e) => e.id).sort()).toEqual(stored.map((r) => r.click_id).sort());
    for (const e of clicked) {
      const { accountId, c } = recorded.find((r) => r.c.clickId === e.id)!;
      expect(c.first).toBe(true);
      expect({ key: e.key, occurredAt: e.occurredAt, accountId: e.accountId, source: e.source }).toEqual({ key: c.linkId, occurredAt: c.clickedAt, accountId, source: 'links' });
      const { first, uaClass, clickId, ...fields } = c;
      expect(e.data).toEqual({ clickId, accountId, ...fields });
      expect([first, uaClass]).toEqual([true, 'desktop']);
    }

    // a relay that dies after publishing and before marking: the row is published again, the same events under the same ids
    await l.sql(`UPDATE links.outbox SET published_at = NULL WHERE id = $1`, [rows[0].id]);
    await relay.flush();
    await waitFor(() => ofGroup(LinkClickedV1.type).length >= 6);
    const again = ofGroup(LinkClickedV1.type);
    expect(again).toHaveLength(6);
    for (const e of again) expect(again.filter((x) => x.id === e.id).map(({ id, type, data, key, occurredAt }) => ({ id, type, data, key, occurredAt }))).toEqual([
      { id: e.id, type: e.type, data: e.data, key: e.key, occurredAt: e.occurredAt },
      { id: e.id, type: e.type, data: e.data, key: e.key, occurredAt: e.occurredAt },
    ]);
  });

  it('still publishes a click group row written as text by a redirect older than 0159 ($links.clicks), with its first clicks', async () => {
    const clickId = randomUUID();
    const click = { clickId, linkId: `${domA}/AAAAAAA`, shortUrl: 'https://a.example/AAAAAAA', originalUrl: 'https://shop-a.example/old', domainId: domA, offerId: null, campaignId: '75', variantId: null, streamId: null, contactId: '9', messageUuid: randomUUID(), destination: '+491510000075', first: true, uaClass: 'mobile', ip: '127.0.0.1', userAgent: 'Old/1.0', clickedAt: new Date().toISOString() };
    const eventId = randomUUID();
    const text = JSON.stringify([{ id: eventId, type: LinkClicksRecordedV1.type, version: LinkClicksRecordedV1.version, occurredAt: click.clickedAt, source: 'links', accountId: A, traceId: null, key: A, data: { accountId: A, clicks: [click] }, topic: Topics.Links }]);
    await l.sql(`INSERT INTO links.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '2', '$links.clicks', '{}', $1)`, [text]);
    await l.t.app.get(LinksOutboxRelay).relay.flush();
    await waitFor(() => l.events(LinkClickedV1.type).some((e) => e.id === clickId) && l.events(LinkClicksRecordedV1.type).some((e) => e.id === eventId));
    expect(l.events(LinkClicksRecordedV1.type).filter((e) => e.id === eventId)).toHaveLength(1);
    const { first, uaClass, ...fields } = click;
    expect([first, uaClass]).toEqual([true, 'mobile']);
    expect(l.events(LinkClickedV1.type).find((e) => e.id === clickId)!.data).toEqual({ ...fields, accountId: A });
  });

  it('still publishes a click group row of values written by the statement of a redirect older than 0165 ($links.click-group), with its first clicks', async () => {
    const clickId = randomUUID();
    const messageUuid = randomUUID();
    const at = new Date().toISOString();
    const eventId = randomUUID();
    const values: CompactClick = [clickId, domA, 'BBBBBBB', 'https://a.example/BBBBBBB', 'https://shop-a.example/v1', null, '76', null, null, '9', messageUuid, '+491510000076', true, 2, '127.0.0.1', 1, at];
    const row: ClickGroupRow[] = [{ occurredAt: at, agents: ['V1/1.0'], events: [{ id: eventId, accountId: A, clicks: [values] }] }];
    await l.sql(`INSERT INTO links.outbox (event_id, topic, key, type, payload, packed) VALUES (gen_random_uuid(), '', '2', '$links.click-group', '{}', $1)`, [JSON.stringify(row)]);
    await l.t.app.get(LinksOutboxRelay).relay.flush();
    await waitFor(() => l.events(LinkClickedV1.type).some((e) => e.id === clickId) && l.events(LinkClicksRecordedV1.type).some((e) => e.id === eventId));
    const recorded = l.events(LinkClicksRecordedV1.type).filter((e) => e.id === eventId);
    expect(recorded).toHaveLength(1);
    const [c] = LinkClicksRecordedV1.schema.parse(recorded[0].data).clicks;
    expect(c).toMatchObject({ clickId, linkId: `${domA}/BBBBBBB`, campaignId: '76', messageUuid, first: true, uaClass: 'mobile', userAgent: 'V1/1.0', clickedAt: at });
    const { first, uaClass, ...fields } = c;
    expect([first, uaClass]).toEqual([true, 'mobile']);
    expect(l.events(LinkClickedV1.type).find((e) => e.id === clickId)!.data).toEqual({ ...fields, accountId: A });
  });

  it('reads links in batches of any size through one statement prepared once per connection, each link with its own fields and unknown codes as not found', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/prep?n={firstName}', domainIds: [domA] })], 12, (i) => ({ firstName: `N${i}` }), '72'));
    const codes = Array.from({ length: 12 }, (_, i) => decodeCode(split(answer.links[`r${i}`].shorturl).path.slice(1)));
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      const store = new LinkStore(pool, { cacheTtlMs: 60_000, negativeTtlMs: 60_000, cacheMax: 1000, now: Date.now, cipher: new CodeCipher(CODE_SECRET) });
      // batches of 1, 4 and 7 links (one unknown code among them), each batch one query on the pool's one connection
      const sizes = [1, 4, 7];
      const found: Array<string | null> = [];
      let at = 0;
      for (const n of sizes) {
        const keys = codes.slice(at, at + n);
        at += n;
        if (n === 7) keys[6] = 0;
        const links = await Promise.all(keys.map((code) => store.loadLink(domA, code)));
        for (const k of links) found.push(k?.location ?? null);
      }
      expect(found).toEqual([...Array.from({ length: 11 }, (_, i) => `https://shop-a.example/prep?n=N${i}`), null]);
      // parsed once for the connection and executed three times: no parse and plan of the lookup text a batch
      const [prepared] = (
        await pool.query<{ n: number; runs: number }>(
          `SELECT count(*)::int AS n, coalesce(sum(generic_plans + custom_plans), 0)::int AS runs FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE '%FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(domain_id, code, seq, i)%'`,
        )
      ).rows;
      expect(prepared).toEqual({ n: 1, runs: sizes.length });
    } finally {
      await pool.end();
    }
  });

  it("plans a redirect connection's look-up once, generically, from its first call: a quiet start of one-code batches does not leave every later look-up re-planned", async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/generic', domainIds: [domA] })], 8, () => ({}), '74'));
    const codes = Array.from({ length: 8 }, (_, i) => decodeCode(split(answer.links[`r${i}`].shorturl).path.slice(1)));
    const pool = redirectPool(l.t.db.url, 1, 'links-redirect-test', () => undefined);
    try {
      const store = new LinkStore(pool, { cacheTtlMs: 60_000, negativeTtlMs: 60_000, cacheMax: 1000, now: Date.now, cipher: new CodeCipher(CODE_SECRET) });
      // eight look-ups of one code each, one after another: what a redirect's first, quiet minutes ask
      for (const code of codes) expect((await store.loadLink(domA, code))?.location).toBe('https://shop-a.example/generic');
      const [plans] = (
        await pool.query<{ generic: number; custom: number }>(
          `SELECT coalesce(sum(generic_plans), 0)::int AS generic, coalesce(sum(custom_plans), 0)::int AS custom FROM pg_prepared_statements WHERE NOT from_sql AND statement LIKE '%FROM unnest($1::bigint[], $2::bigint[], $3::bigint[]) WITH ORDINALITY AS k(domain_id, code, seq, i)%'`,
        )
      ).rows;
      expect(plans).toEqual({ generic: codes.length, custom: 0 });
    } finally {
      await pool.end();
    }
  });

  it('past the cache time serves a link on without reading it while its offer reads the same, and an offer changed shows within the cache time', async () => {
    const offer = await l.offer(A, 'https://shop-a.example/ttl?n={firstName}');
    const withOffer = await l.mint(batch(A, [shortUrl({ offerId: offer, domainIds: [domA] })], 3, (i) => ({ firstName: `T${i}` }), '73'));
    const plain = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/plain', domainIds: [domA] })], 2, () => ({}), '73'));
    const code = (a: typeof plain, ref: string) => decodeCode(split(a.links[ref].shorturl).path.slice(1));
    const o = ['r0', 'r1', 'r2'].map((r) => code(withOffer, r));
    const p = ['r0', 'r1'].map((r) => code(plain, r));
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    let reads = 0;
    const query = pool.query.bind(pool) as (c: { name?: string }) => Promise<unknown>;
    pool.query = ((c: { name?: string }) => {
      if (c.name === 'links_link_lookup') reads++;
      return query(c);
    }) as typeof pool.query;
    let now = Date.now();
    const store = new LinkStore(pool, { cacheTtlMs: 10_000, negativeTtlMs: 2_000, cacheMax: 1000, now: () => now, cipher: new CodeCipher(CODE_SECRET) });
    // what the redirect does: the cached link, else a read
    const get = async (code: number) => (store.cachedLink(domA, code) ?? (await store.loadLink(domA, code)))?.location ?? null;
    try {
      await Promise.all([...o, ...p].map((c) => store.loadLink(domA, c)));
      expect(reads).toBe(1);
      // past the cache time: the links without an offer are not read again; of the offer's links, the first asked is
      // read (its offer's fields), the others are served as they are while the offer reads the same
      now += 10_001;
      expect(await get(p[0])).toBe('https://shop-a.example/plain');
      expect(await get(p[1])).toBe('https://shop-a.example/plain');
      expect(reads).toBe(1);
      expect(await get(o[0])).toBe('https://shop-a.example/ttl?n=T0');
      expect(reads).toBe(2);
      expect(await get(o[1])).toBe('https://shop-a.example/ttl?n=T1');
      expect(await get(o[2])).toBe('https://shop-a.example/ttl?n=T2');
      expect(reads).toBe(2);
      // the offer changes: within the cache time the links answer as before; after it, every link of the offer answers
      // the change (each is read again, its cached fields no longer the offer's)
      await l.sql(`UPDATE links.offer SET original_url = 'https://shop-a.example/new?n={firstName}' WHERE id = $1`, [offer]);
      now += 5_000;
      expect(await get(o[1])).toBe('https://shop-a.example/ttl?n=T1');
      now += 5_001;
      expect(await get(o[0])).toBe('https://shop-a.example/new?n=T0');
      expect(await get(o[1])).toBe('https://shop-a.example/new?n=T1');
      expect(await get(o[2])).toBe('https://shop-a.example/new?n=T2');
      expect(reads).toBe(5);
      // disabled: 410 for all of them after the cache time (the answer checks `disabled`)
      await l.sql(`UPDATE links.offer SET disabled = true WHERE id = $1`, [offer]);
      now += 10_001;
      const links = [];
      for (const c of o) links.push(store.cachedLink(domA, c) ?? (await store.loadLink(domA, c)));
      expect(links.map((k) => k?.disabled)).toEqual([true, true, true]);
      expect(reads).toBe(8);
      // a link without an offer is read again after LinkStore.REREAD_AFTER cache times at the latest
      now += 10_000 * LinkStore.REREAD_AFTER;
      expect(await get(p[0])).toBe('https://shop-a.example/plain');
      expect(reads).toBe(9);
    } finally {
      await pool.end();
    }
  });

  it('never drops a click while the database commits: with the click buffer full, answers wait for room', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/full', domainIds: [domA] })], 20, () => ({}), '69'));
    const pool = new Pool({ connectionString: l.t.db.url, max: 4 });
    const server = new RedirectServer({ pool, port: 0, host: '127.0.0.1', publicScheme: 'http', codeSecret: CODE_SECRET, clicks: { bufferMax: 3, flushMs: 5 } });
    const port = await server.listen();
    try {
      const get = (url: string) =>
        new Promise<number>((resolve, reject) => {
          const { host, path } = split(url);
          http.get({ host: '127.0.0.1', port, path, headers: { host }, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          }).on('error', reject);
        });
      const urls = Array.from({ length: 60 }, (_, i) => answer.links[`r${i % 20}`].shorturl);
      expect(await Promise.all(urls.map(get))).toEqual(urls.map(() => 302));
      await server.clicks.drain();
      expect(server.clicks.stats.waited).toBeGreaterThan(0);
      expect(server.clicks.stats.dropped).toBe(0);
    } finally {
      await server.close();
      await pool.end();
    }
    const [{ n }] = await l.sql<{ n: number }>(`SELECT count(*)::int AS n FROM links.click WHERE campaign_id = 69 AND NOT preview`);
    expect(n).toBe(60);
  });

  it('never drops a click while PostgreSQL is away: with the click buffer full the answers pause, the group is retried, and every click is stored once it is back', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/outage', domainIds: [domA] })], 10, () => ({}), '83'));
    const db = new URL(l.t.db.url);
    const link = await new CuttableLink().start();
    link.target = { host: db.hostname, port: Number(db.port) };
    db.hostname = '127.0.0.1';
    db.port = String(link.port);
    const pool = new Pool({ connectionString: db.toString(), max: 2 });
    pool.on('error', () => undefined);
    const errors: string[] = [];
    const server = new RedirectServer({ pool, port: 0, host: '127.0.0.1', publicScheme: 'http', codeSecret: CODE_SECRET, clicks: { bufferMax: 3, flushMs: 5 }, onError: (e) => errors.push((e as Error).message) });
    const port = await server.listen();
    const get = (url: string) =>
      new Promise<number>((resolve, reject) => {
        const { host, path } = split(url);
        http.get({ host: '127.0.0.1', port, path, headers: { host, 'user-agent': 'Outage/1.0' }, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        }).on('error', reject);
      });
    const urls = Array.from({ length: 10 }, (_, i) => answer.links[`r${i}`].shorturl);
    try {
      // the links are in memory (their first clicks committed), then the database goes away
      expect(await Promise.all(urls.map(get))).toEqual(urls.map(() => 302));
      await server.clicks.drain();
      link.cut();
      let answered = 0;
      const during = Array.from({ length: 30 }, (_, i) =>
        get(urls[i % 10]).then((status) => {
          answered++;
          return status;
        }),
      );
      await waitFor(() => server.clicks.stats.failedWrites >= 2);
      // the buffer (3) is answered, the rest wait: nothing beyond the bound was redirected without its click
      expect(answered).toBeLessThanOrEqual(3);
      link.restore();
      expect(await Promise.all(during)).toEqual(during.map(() => 302));
      await server.clicks.drain();
      expect(server.clicks.stats.dropped).toBe(0);
      expect(errors.length).toBeGreaterThan(0);
    } finally {
      await server.close();
      await pool.end();
      await link.stop();
    }
    const [{ n }] = await l.sql<{ n: number }>(`SELECT count(*)::int AS n FROM links.click WHERE campaign_id = 83 AND NOT preview AND user_agent = 'Outage/1.0'`);
    expect(n).toBe(40);
  });

  it('records the socket address of a click, never an X-Forwarded-For no trusted proxy set', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/ip', domainIds: [domA] })], 1, () => ({}), '66'));
    const { host, path } = split(answer.links.r0.shorturl);
    expect((await l.hit(host, path, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(302);
    await drain();
    const rows = await l.sql<{ ip: string }>(`SELECT ip FROM links.click WHERE campaign_id = 66`);
    expect(rows).toEqual([{ ip: expect.stringMatching(/127\.0\.0\.1$/) }]);
  });

  it('answers the same links when the same batch is asked twice, and announces them', async () => {
    const req = batch(A, [shortUrl({ url: 'https://shop-a.example/i', domainIds: [domA] }), { ...shortUrl({ variable: 'optout', kind: 'optout', domainIds: [domA] }) }], 5);
    const first = await l.mint(req);
    const again = await l.mint(req);
    // the same links; the links per domain are counted on the first answer only (a repeat counts nothing again)
    expect(again).toEqual({ ...first, usages: undefined });
    expect(first.usages?.reduce((n, u) => n + u.links, 0)).toBe(10);
    expect(Object.keys(first.links)).toHaveLength(5);
    expect(new Set(Object.values(first.links).flatMap((v) => Object.values(v))).size).toBe(10);
    const [{ n }] = await l.sql<{ n: string }>(`SELECT count(*)::text AS n FROM links.link_target WHERE batch_id = $1`, [req.batchId]);
    expect(n).toBe('2');
    await waitFor(() => l.events(LinkBatchMintedV1.type).some((e) => (e.data as { batchId: string }).batchId === req.batchId));
  });

  it('skips the recipient probe for a link whose counted click this process committed; a preview or a failed group does not count, and first clicks stay exact', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/seen', domainIds: [domA] })], 3, () => ({}), '81'));
    const links = await Promise.all(['r0', 'r1', 'r2'].map((r) => l.redirect.running!.store.loadLink(domA, decodeCode(split(answer.links[r].shorturl).path.slice(1)))));
    const click = (i: number, preview = false): Click => ({ link: links[i]!, codeText: split(answer.links[`r${i}`].shorturl).path.slice(1), host: split(answer.links[`r${i}`].shorturl).host, at: Date.now(), uaClass: 1, preview, ip: '127.0.0.1', userAgent: 'Seen/1.0' });
    const pool = new Pool({ connectionString: l.t.db.url, max: 1 });
    const committer = new GroupCommitter(pool, 'https');
    const sent: string[] = [];
    let failNext = false;
    const recorder = new ClickRecorder(null, { flushMs: 1, batchMax: 100, bufferMax: 100 }, 'https', (chunk: ClickChunk) => {
      sent.push(arrayBodyValues(chunk.seen).map((v) => (v ? 't' : 'f')).join(','));
      if (failNext) {
        failNext = false;
        return Promise.reject(new Error('database away'));
      }
      return committer.commit(chunk);
    });
    try {
      // a preview is recorded, not counted: no first click, so the link is not marked
      recorder.record(click(0, true));
      await recorder.drain();
      // a counted click whose group fails once and is written by the retry: marked only after its commit
      failNext = true;
      recorder.record(click(0));
      await recorder.drain();
      expect(recorder.stats.failedWrites).toBe(1);
      recorder.record(click(0));
      recorder.record(click(1));
      await recorder.drain();
      expect(sent).toEqual(['f', 'f', 'f', 't,f']);
    } finally {
      await pool.end();
    }
    const firsts = await l.sql<{ code: string; first: boolean; preview: boolean }>(`SELECT code::text, first, preview FROM links.click WHERE campaign_id = 81 ORDER BY clicked_at, first DESC`);
    expect(firsts.filter((c) => c.code === String(links[0]!.code)).map((c) => [c.preview, c.first])).toEqual([
      [true, false],
      [false, true],
      [false, false],
    ]);
    expect(firsts.filter((c) => c.code === String(links[1]!.code)).map((c) => c.first)).toEqual([true]);
    expect(await l.sql(`SELECT count(*)::int AS n FROM links.recipient_click WHERE campaign_id = 81`)).toEqual([{ n: 2 }]);

    // the mark says the recipient's first click is in PostgreSQL, and the statement takes it at its word: a link marked
    // (here by hand, never clicked) writes no first-click row
    links[2]!.clickCommitted = true;
    const other = new Pool({ connectionString: l.t.db.url, max: 1 });
    try {
      await new GroupCommitter(other, 'https').commit(encodeClicks([click(2)]));
    } finally {
      await other.end();
    }
    expect(await l.sql(`SELECT count(*)::int AS n FROM links.recipient_click WHERE campaign_id = 81`)).toEqual([{ n: 2 }]);
  });

  it('reports its answers at /-/metrics to scrapers inside the deployment, never through a proxy', async () => {
    const answer = await l.mint(batch(A, [shortUrl({ url: 'https://shop-a.example/m', domainIds: [domA] })], 1, () => ({}), '77'));
    const { host, path } = split(answer.links.r0.shorturl);
    expect((await l.hit(host, path)).status).toBe(302);
    expect((await l.hit(host, '/zzzzzzz')).status).toBe(404);
    const m = await l.hit(host, '/-/metrics');
    expect(m.status).toBe(200);
    expect(m.body).toMatch(/switchboard_links_redirect_answers_total\{answer="redirect"\} [1-9]/);
    expect(m.body).toMatch(/switchboard_links_redirect_answers_total\{answer="not_found"\} [1-9]/);
    expect((await l.hit(host, '/-/metrics', { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(404);
  });
});
