import { TelegramAuthCompletedV1, TelegramCodeRequestedV1, TelegramCodeSubmittedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { TelegramPrivateAdapter, type TelegramLoginGateway } from '../src';
import { startDispatch, type DispatchTestApp } from './support';

/**
 * Telegram private cannot reach Telegram here (no network): the MTProto calls sit behind TelegramLoginGateway, and
 * this fake follows Telegram's answers (a code hash, SESSION_PASSWORD_NEEDED, a session string).
 */
class FakeTelegram implements TelegramLoginGateway {
  calls: string[] = [];
  sent: Array<{ session: string; to: string; text: string }> = [];
  async sendCode(phone: string) {
    this.calls.push(`sendCode ${phone}`);
    return { phoneCodeHash: 'hash-1', session: 'session-before-login' };
  }
  async signIn(phone: string, hash: string, code: string, session: string) {
    this.calls.push(`signIn ${phone} ${hash} ${code} ${session}`);
    if (code !== '12345') throw Object.assign(new Error('PHONE_CODE_INVALID'), { errorMessage: 'PHONE_CODE_INVALID' });
    return { passwordNeeded: true as const, session: 'session-awaiting-password' };
  }
  async signInWithPassword(password: string, session: string) {
    this.calls.push(`password ${password} ${session}`);
    return { session: 'session-authorised' };
  }
  async sendMessage(session: string, to: string, text: string) {
    this.sent.push({ session, to, text });
    return { id: String(this.sent.length) };
  }
}

describe('Telegram private: login with the OTP step, then sending as the user', () => {
  const fake = new FakeTelegram();
  let d: DispatchTestApp;

  beforeAll(async () => {
    d = await startDispatch({
      telegramGateway: fake,
      seedVendors: [{ name: 'Telegram MTProto', serviceType: 'telegram_private', adapter: 'telegram_private' }],
      adapterFactory: (v) => (v.adapter === 'telegram_private' ? new TelegramPrivateAdapter(String(v.id), null, fake) : null),
    });
  });

  afterAll(() => d.close());

  const submit = (code: string, password: string | null) =>
    d.publish([createEnvelope(TelegramCodeSubmittedV1, { accountId: '1', streamId: '80', streamUid: 'stream-80', code, password }, { accountId: '1', source: 'streams' })]);
  const completions = async () => {
    await d.flushOutbox();
    return d.events(TelegramAuthCompletedV1.type).map((e) => e.data as { ok: boolean; error: string | null });
  };

  it('asks Telegram for a code when the stream is configured and tells streams', async () => {
    await d.configureStream({ streamId: '80', channel: 'telegram_private', streamType: 8, sender: '+491701234567', credentials: { phone: '+491701234567' } });
    await d.until(() => fake.calls.includes('sendCode +491701234567'));
    await d.until(async () => (await d.flushOutbox(), d.events(TelegramCodeRequestedV1.type).length === 1));
    expect(d.events(TelegramCodeRequestedV1.type)[0].data).toEqual({ accountId: '1', streamId: '80', streamUid: 'stream-80', phone: '+491701234567', error: null });
  });

  it('reports a wrong code, then asks for the two-step password, then completes with it', async () => {
    await submit('00000', null);
    await d.until(async () => (await completions()).length === 1);
    expect((await completions())[0]).toEqual(expect.objectContaining({ ok: false, error: 'PHONE_CODE_INVALID' }));
    await submit('12345', null);
    await d.until(async () => (await completions()).length === 2);
    expect((await completions())[1]).toEqual(expect.objectContaining({ ok: false, error: 'PASSWORD_NEEDED' }));
    await submit('12345', 'correct horse');
    await d.until(async () => (await completions()).length === 3);
    expect((await completions())[2]).toEqual(expect.objectContaining({ ok: true, error: null }));
    expect(fake.calls).toContain('password correct horse session-awaiting-password');
  });

  it('sends as the user with the stored session; the message is final once Telegram took it', async () => {
    const uuid = await d.accept({ channel: 'telegram_private', streamId: '80', streamUid: 'stream-80', streamType: 8, sender: '+491701234567', destination: '@friend', iso2: null, text: 'hi from my account', encoding: null });
    await d.untilStatus(uuid, 'delivered');
    expect(fake.sent).toEqual([{ session: 'session-authorised', to: '@friend', text: 'hi from my account' }]);
    // the session (a login to the user's account) is stored sealed for the stream, never in the clear
    const [{ auth_state }] = await d.sql<{ auth_state: Record<string, unknown> }>(`SELECT auth_state FROM dispatch.stream_channel WHERE stream_id = 80`);
    expect(auth_state).toEqual({ authorised: true, sealedSession: expect.stringMatching(/^ps1:/) });
  });
});
