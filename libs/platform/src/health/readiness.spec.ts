import { InMemoryEventBus } from '../bus/in-memory-event-bus';
import type { EventBus } from '../bus/event-bus';
import { ProcessReadiness } from './health';

describe('ProcessReadiness', () => {
  it('is ready once marked, and while a consumer group has not joined yet it says which', () => {
    let joined = false;
    const bus = { consumersJoined: () => (joined ? { joined: true, waiting: [] } : { joined: false, waiting: ['dispatch.sender'] }) } as unknown as EventBus;
    const r = new ProcessReadiness(bus);
    expect(r.status()).toEqual({ ready: false, reason: 'starting' });
    r.markReady();
    expect(r.status()).toEqual({ ready: false, reason: 'waiting for consumer groups to join: dispatch.sender' });
    joined = true;
    expect(r.status()).toEqual({ ready: true, reason: 'ready' });
    r.markNotReady('draining');
    expect(r.status()).toEqual({ ready: false, reason: 'draining' });
  });

  it('has nothing to wait for on the in-memory bus (embedded mode)', () => {
    const r = new ProcessReadiness(new InMemoryEventBus());
    r.markReady();
    expect(r.status().ready).toBe(true);
  });
});
