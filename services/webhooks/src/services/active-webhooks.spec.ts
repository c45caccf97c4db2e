import { ActiveWebhooks } from './active-webhooks';

describe('active webhooks', () => {
  it("asks the database once for the events of an account that arrive together, and again after a failure or a change", async () => {
    let asked = 0;
    let fail = false;
    const ds = {
      query: async () => {
        asked++;
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error('database away');
        return [{ trigger: 'status' }];
      },
    };
    const active = new ActiveWebhooks(ds as never);

    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => active.has('7', i % 2 ? 'status' : 'edr')));
    expect(asked).toBe(1);
    expect(answers.filter(Boolean)).toHaveLength(32);

    active.forget('7');
    fail = true;
    await expect(active.has('7', 'status')).rejects.toThrow('database away');
    expect(asked).toBe(2);
    // the failure is not remembered: the next event asks again
    fail = false;
    await expect(active.has('7', 'status')).resolves.toBe(true);
    expect(asked).toBe(3);
    // another account has its own answer
    await active.has('8', 'status');
    expect(asked).toBe(4);
  });
});
