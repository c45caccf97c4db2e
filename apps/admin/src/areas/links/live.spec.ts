import { describe, expect, it } from '@jest/globals';
import type { RealtimeFrame } from '../contacts/types';
import { domainChange } from './live';

const frame = (over: Partial<RealtimeFrame>): RealtimeFrame => ({ id: '1-1', subject: 'rt.5.domains', accountId: '5', topic: 'domains', type: 'domain.changed', data: { id: 12, state: 1, declinedReason: null }, at: '', ...over });

describe('live domain messages (spec 4 "Live connections")', () => {
  it('takes a domain change or deletion of the current account', () => {
    expect(domainChange(frame({}), 5)).toEqual({ id: 12, deleted: false, state: 1 });
    expect(domainChange(frame({ type: 'domain.deleted' }), '5')).toEqual({ id: 12, deleted: true, state: 1 });
  });

  it('ignores another account, another topic, pools and offers, and frames off the schema', () => {
    expect(domainChange(frame({ accountId: '6' }), 5)).toBeNull();
    expect(domainChange(frame({}), undefined)).toBeNull();
    expect(domainChange(frame({ topic: 'campaigns' }), 5)).toBeNull();
    expect(domainChange(frame({ type: 'domain_pool.changed' }), 5)).toBeNull();
    expect(domainChange(frame({ type: 'offer.changed' }), 5)).toBeNull();
    for (const data of [{ id: '12', state: 1 }, { id: 0, state: 1 }, { id: 1.5 }, { id: 12, state: 8 }, { id: 12, state: 'configured' }, []]) {
      expect([data, domainChange(frame({ data: data as Record<string, unknown> }), 5)]).toEqual([data, null]);
    }
  });
});
