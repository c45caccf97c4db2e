import { randomUUID } from 'node:crypto';
import { MessageStatusChangedV1 } from '@switchboard/contracts';
import { createEnvelope } from '@switchboard/platform';
import { MessagingConsumer } from './messaging.consumer';

function status(campaignId: string | null) {
  return createEnvelope(
    MessageStatusChangedV1,
    { messageUuid: randomUUID(), accountId: '1', streamId: '1', streamUid: 'u', campaignId, sender: 'x', destination: '+4915100000001', status: 'delivered', outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString() },
    { source: 'dispatch', accountId: '1' },
  );
}

describe('inbox statuses', () => {
  it("looks a status up only when the message can be the inbox's: a campaign's message costs no query", async () => {
    const queries: string[] = [];
    const ds = { query: async (sql: string) => (queries.push(sql), [[], 0]) };
    const consumer = new MessagingConsumer(ds as never, null as never, { consumers: false } as never, null as never, null as never, null as never, null as never);

    await consumer.onStatus(status('42'));
    expect(queries).toEqual([]);

    await consumer.onStatus(status(null));
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain('UPDATE inbox.event');
  });
});
