import type { RealtimeMessage } from '@switchboard/contracts';
import { EventIdGenerator } from './event-id';
import { ReplayBuffer } from './replay-buffer';

describe('ReplayBuffer', () => {
  let clock: number;
  const now = () => clock;
  let ids: EventIdGenerator;
  const msg = (account: string, topic = 'campaigns', rest = '1'): RealtimeMessage => {
    const { id, ms } = ids.next();
    return { id, subject: `rt.${account}.${topic}.${rest}`, accountId: account, topic, type: 't', data: {}, at: new Date(ms).toISOString() };
  };
  const patterns = (a: string, topic = 'campaigns') => [`rt.${a}.${topic}`, `rt.${a}.${topic}.>`];

  beforeEach(() => {
    clock = 1_000_000;
    ids = new EventIdGenerator(null, now);
  });

  it('replays what came after a held id, only for the account and topics asked', () => {
    const buf = new ReplayBuffer({ now });
    const a1 = msg('10');
    buf.add(a1);
    clock++;
    const a2 = msg('10');
    const other = msg('11');
    const streams = msg('10', 'streams');
    const a3 = msg('10');
    [a2, other, streams, a3].forEach((m) => buf.add(m));
    expect(buf.replay('10', a1.id, patterns('10'))).toEqual({ messages: [a2, a3], complete: true });
    expect(buf.replay('10', a3.id, patterns('10'))).toEqual({ messages: [], complete: true });
  });

  it('keeps a bounded log per account and reports history it lost as incomplete', () => {
    const buf = new ReplayBuffer({ now, perAccount: 3 });
    const sent: RealtimeMessage[] = [];
    for (let i = 0; i < 5; i++) {
      clock += 10;
      sent.push(msg('10'));
      buf.add(sent[i]);
    }
    expect(buf.stats().messages).toBe(3);
    // sent[0] and sent[1] were evicted: what is still held comes back, marked incomplete
    expect(buf.replay('10', sent[0].id, patterns('10'))).toEqual({ messages: sent.slice(2), complete: false });
    expect(buf.replay('10', sent[2].id, patterns('10'))).toEqual({ messages: sent.slice(3), complete: true });
  });

  it('answers by time an id from before a restart, as incomplete', () => {
    const buf = new ReplayBuffer({ now });
    clock += 100;
    const m = msg('10');
    buf.add(m);
    expect(buf.replay('10', `${1_000_000 - 5000}-42`, patterns('10'))).toEqual({ messages: [m], complete: false });
    expect(buf.replay('10', 'garbage', patterns('10'))).toEqual({ messages: [], complete: false });
  });

  it('marks older history incomplete after a delivery gap', () => {
    const buf = new ReplayBuffer({ now });
    const before = msg('10');
    buf.add(before);
    clock += 50;
    buf.markGap();
    clock += 50;
    const after = msg('10');
    buf.add(after);
    expect(buf.replay('10', before.id, patterns('10')).complete).toBe(false);
    expect(buf.replay('10', after.id, patterns('10')).complete).toBe(true);
  });

  it('forgets the least recently written account beyond maxAccounts', () => {
    const buf = new ReplayBuffer({ now, maxAccounts: 2 });
    const a = msg('1');
    buf.add(a);
    buf.add(msg('2'));
    clock += 10;
    buf.add(msg('3'));
    expect(buf.stats().accounts).toBe(2);
    expect(buf.replay('1', a.id, patterns('1'))).toEqual({ messages: [], complete: false });
  });
});
