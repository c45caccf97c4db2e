import { phone, startStreams, type Json, type StreamsTestApp } from './support';

/** OTP streams: code generation per the stream's params, expiry, attempts per number and per IP, failures, cool-down. */
describe('OTP streams', () => {
  let a: StreamsTestApp;
  const ACC = '31';

  beforeAll(async () => {
    a = await startStreams();
    await a.account(ACC, { balance: 100_000_000, prices: { US: 10_000 } });
  });
  afterAll(async () => {
    await a?.close();
  });

  const otpStream = (params: Json = {}) => a.stream(ACC, { name: 'OTP', streamType: 3, params });
  const request = (token: string, body: Json) => a.call('POST', '/streams/otp/request', { body, headers: { authorization: token } });
  const verify = (token: string, body: Json) => a.call('POST', '/streams/otp/verify', { body, headers: { authorization: token } });
  /** The code as dispatch receives it: from the accepted event's text. */
  const codeOf = async (messageUuid: string): Promise<string> => {
    const e = (await a.events()).find((x) => x.type === 'streams.message.accepted' && (x.data as Json).messageUuid === messageUuid);
    if (!e) throw new Error('no accepted event');
    return /code is (\w+)/.exec((e.data as Json).text)?.[1] ?? '';
  };
  const wrong = (code: string) => (code === '00000' ? '11111' : '00000').slice(0, code.length).padEnd(code.length, '0');

  it('starts with the spec defaults: generator 2, length 5, TTL 300 s, 10 attempts, 10 by IP, 10 failures, cool-down 1800 s', async () => {
    const s = await otpStream();
    expect(s.params).toMatchObject({ code_generator: 2, code_length: 5, ttl: 300, max_attempts: 10, max_attempts_ip: 10, max_failures: 10, cool_down_time: 1800, otp_message: 'Your verification code is {{code}}' });
  });

  it('refuses lengths outside 4 to 8 and cool-downs outside the options', async () => {
    for (const params of [{ code_length: 3 }, { code_length: 9 }, { cool_down_time: 100 }, { code_generator: 4 }, { otp_message: 'no placeholder' }]) {
      const res = await a.call('POST', '/streams', { token: a.member(ACC), body: { name: 'bad', streamType: 3, params } });
      expect(res.status).toBe(400);
      expect(res.body.violations[0].propertyPath).toMatch(/^params\./);
    }
    const sms = await a.call('POST', '/streams', { token: a.member(ACC), body: { name: 'sms', streamType: 1, params: { code_length: 6 } } });
    expect(sms.status).toBe(400);
  });

  it('sends a code of the stream\'s length and generator through the send pipeline, charged, and stores only its hash', async () => {
    const s = await otpStream({ code_length: 8, code_generator: 1 });
    const before = await a.balance(ACC);
    const res = await request(s.token, { phone: phone() });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ code: 'OK', status: 'accepted', destination: phone(), ttl: 300, price: 0.01 });
    expect(await a.balance(ACC)).toBe(before - 10_000);
    const code = await codeOf(res.body.message_uuid);
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    const [msg] = await a.sql(`SELECT text FROM streams.message WHERE uuid = $1`, [res.body.message_uuid]);
    expect(msg.text).toBe('Your verification code is ********');
    const [otp] = await a.sql(`SELECT encode(code_hash, 'hex') AS h FROM streams.otp WHERE id = $1`, [res.body.otp_id]);
    expect(otp.h).not.toContain(Buffer.from(code).toString('hex'));
    const ok = await verify(s.token, { phone: phone(), code: code.toLowerCase() });
    expect(ok).toMatchObject({ status: 200, body: { code: 'OK', verified: true } });
    // a verified code is spent
    expect((await verify(s.token, { phone: phone(), code })).status).toBe(400);
    expect((await a.events()).some((e) => e.type === 'streams.otp.verified' && (e.data as Json).otpId === res.body.otp_id)).toBe(true);
  });

  it('uses the stream\'s own message with the code in place of {{code}}', async () => {
    const s = await otpStream({ otp_message: 'Acme: {{code}} is your login code', code_length: 4 });
    const res = await request(s.token, { phone: phone(1) });
    const e = (await a.events()).find((x) => x.type === 'streams.message.accepted' && (x.data as Json).messageUuid === res.body.message_uuid);
    expect((e?.data as Json).text).toMatch(/^Acme: \d{4} is your login code$/);
  });

  it('expires a code after its TTL', async () => {
    const s = await otpStream({ ttl: 60 });
    const res = await request(s.token, { phone: phone(2) });
    const code = await codeOf(res.body.message_uuid);
    a.clock.advance(61_000);
    const late = await verify(s.token, { phone: phone(2), code });
    expect(late).toMatchObject({ status: 400, body: { code: '0x17' } });
    expect(late.body.message).toMatch(/expired/);
  });

  it('replaces an open code when a new one is requested', async () => {
    const s = await otpStream();
    const first = await request(s.token, { phone: phone(3) });
    const second = await request(s.token, { phone: phone(3) });
    const [c1, c2] = [await codeOf(first.body.message_uuid), await codeOf(second.body.message_uuid)];
    if (c1 !== c2) expect((await verify(s.token, { phone: phone(3), code: c1 })).status).toBe(400);
    expect((await verify(s.token, { phone: phone(3), code: c2 })).status).toBe(200);
  });

  it('refuses more than max_attempts requests for a number within the cool-down (0x32), then allows them again', async () => {
    const s = await otpStream({ max_attempts: 3, cool_down_time: 60 });
    for (let i = 0; i < 3; i++) expect((await request(s.token, { phone: phone(4) })).status).toBe(202);
    const before = await a.balance(ACC);
    const refused = await request(s.token, { phone: phone(4) });
    expect(refused).toMatchObject({ status: 429, body: { code: '0x32' } });
    expect(await a.balance(ACC)).toBe(before);
    // another number is not affected
    expect((await request(s.token, { phone: phone(5) })).status).toBe(202);
    a.clock.advance(61_000);
    expect((await request(s.token, { phone: phone(4) })).status).toBe(202);
  });

  it('refuses more than max_attempts_ip requests from one address within the cool-down (0x32)', async () => {
    const s = await otpStream({ max_attempts_ip: 2, cool_down_time: 180 });
    expect((await request(s.token, { phone: phone(10) })).status).toBe(202);
    expect((await request(s.token, { phone: phone(11) })).status).toBe(202);
    expect(await request(s.token, { phone: phone(12) })).toMatchObject({ status: 429, body: { code: '0x32' } });
    a.clock.advance(181_000);
    expect((await request(s.token, { phone: phone(12) })).status).toBe(202);
  });

  it('locks a number after max_failures wrong codes (0x33) until the cool-down passes', async () => {
    const s = await otpStream({ max_failures: 3, cool_down_time: 300, ttl: 3600 });
    const res = await request(s.token, { phone: phone(20) });
    const code = await codeOf(res.body.message_uuid);
    const first = await verify(s.token, { phone: phone(20), code: wrong(code) });
    expect(first).toMatchObject({ status: 400, body: { code: '0x17' } });
    expect(first.body.message).toMatch(/2 attempts left/);
    expect((await verify(s.token, { phone: phone(20), code: wrong(code) })).status).toBe(400);
    expect(await verify(s.token, { phone: phone(20), code: wrong(code) })).toMatchObject({ status: 429, body: { code: '0x33' } });
    // locked: even the right code, and new requests, are refused
    expect((await verify(s.token, { phone: phone(20), code })).body.code).toBe('0x33');
    expect((await request(s.token, { phone: phone(20) })).body.code).toBe('0x33');
    a.clock.advance(301_000);
    const again = await request(s.token, { phone: phone(20) });
    expect(again.status).toBe(202);
    expect((await verify(s.token, { phone: phone(20), code: await codeOf(again.body.message_uuid) })).status).toBe(200);
  });

  it('counts failures in the database even though the call fails', async () => {
    const s = await otpStream();
    const res = await request(s.token, { phone: phone(30) });
    await verify(s.token, { phone: phone(30), code: wrong(await codeOf(res.body.message_uuid)) });
    const [row] = await a.sql(`SELECT failures FROM streams.otp WHERE id = $1`, [res.body.otp_id]);
    expect(row.failures).toBe(1);
  });

  it('answers verify for a number without a code with 0x17 and validates input with 0x1', async () => {
    const s = await otpStream();
    expect((await verify(s.token, { phone: phone(40), code: '12345' })).body.code).toBe('0x17');
    expect((await verify(s.token, { phone: phone(40) })).body).toMatchObject({ code: '0x1', violations: [expect.objectContaining({ propertyPath: 'code' })] });
    expect((await request(s.token, { phone: 'nope' })).body).toMatchObject({ code: '0x1', violations: [expect.objectContaining({ propertyPath: 'phone' })] });
    expect((await request(s.token, { phone: phone(), extra: 1 })).body.code).toBe('0x1');
  });

  it('refuses OTP calls on a stream that is not an OTP stream, and needs the stream token', async () => {
    const sms = await a.stream(ACC);
    expect((await request(sms.token, { phone: phone() })).body.code).toBe('0x17');
    expect((await a.call('POST', '/streams/otp/request', { body: { phone: phone() } })).body.code).toBe('0x11');
    expect((await request('sbs_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC', { phone: phone() })).body.code).toBe('0x12');
  });

  it('refuses an OTP request the balance does not cover (0x41) and stores no code', async () => {
    await a.account('32', { balance: 5_000, prices: { US: 10_000 } });
    const s = await a.stream('32', { name: 'OTP', streamType: 3 });
    expect(await request(s.token, { phone: phone() })).toMatchObject({ status: 402, body: { code: '0x41' } });
    const [{ n }] = await a.sql(`SELECT count(*)::int AS n FROM streams.otp WHERE stream_id = $1`, [s.id]);
    expect(n).toBe(0);
  });
});
