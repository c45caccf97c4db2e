import { randomUUID } from 'node:crypto';
import { MessageStatusChangedV1 } from '@switchboard/contracts';
import { FakeDns, Receiver, startWebhooks, type Json, type WebhooksTestApp } from './support';

const A = '81';
const PUBLIC = '93.184.215.14';

/**
 * Production settings (no loopback) against a local DNS server: the checked address is the one connected to; names
 * that resolve to loopback, private or metadata addresses are refused before any connection.
 */
describe('webhook SSRF guard', () => {
  let a: WebhooksTestApp;
  let dns: FakeDns;
  let rx: Receiver;

  beforeAll(async () => {
    dns = await new FakeDns({
      'rebind.test': [[PUBLIC], ['127.0.0.1']],
      'steady.test': [[PUBLIC], ['127.0.0.1']],
      'loopback.test': [['127.0.0.1']],
      'metadata.test': [['169.254.169.254']],
      'mixed.test': [[PUBLIC, '10.0.0.7']],
    }).start();
    rx = await new Receiver().start();
    a = await startWebhooks({ allowLoopback: false, allowedPorts: 'any', dnsServers: [`127.0.0.1:${dns.port}`], timeoutMs: 500 });
  });
  afterAll(async () => {
    await a?.close();
    await rx?.stop();
    await dns?.stop();
  });

  const deliverTo = async (host: string): Promise<Json> => {
    const created = await a.call('POST', '/webhooks', { token: a.member(A), body: { name: host, url: `http://${host}:${rx.port}/hook`, trigger: 'message_status_change' } });
    expect(created.status).toBe(201);
    await a.publish(MessageStatusChangedV1, {
      messageUuid: randomUUID(), accountId: A, streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'sent',
      outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString(),
    });
    await a.deliveries.runOnce();
    const [row] = await a.sql(`SELECT request, status, error FROM webhooks.request_log WHERE webhook_id = $1`, [created.body.id]);
    await a.sql(`UPDATE webhooks.webhook SET active = false WHERE id = $1`, [created.body.id]);
    return row;
  };

  it('refuses a literal loopback URL at create in production settings', async () => {
    const res = await a.call('POST', '/webhooks', { token: a.member(A), body: { name: 'x', url: `http://127.0.0.1:${rx.port}/hook`, trigger: 'edr_info' } });
    expect([res.status, res.body.violations?.[0]?.propertyPath]).toEqual([400, 'url']);
  });

  it.each(['loopback.test', 'metadata.test', 'mixed.test'])('refuses %s (resolves to a private address) without connecting', async (host) => {
    const row = await deliverTo(host);
    expect(row).toMatchObject({ status: 'failed', error: 'E-DESTINATION_REFUSED' });
    expect(rx.requests).toHaveLength(0);
  });

  it('connects to the address it checked: a name answering public, then 127.0.0.1, never reaches 127.0.0.1', async () => {
    const row = await deliverTo('rebind.test');
    // one A lookup: the connection used the checked address, not a second answer
    expect(dns.aQueries('rebind.test')).toBe(1);
    expect(row.request.address).toBe(PUBLIC);
    expect(rx.requests).toHaveLength(0);
    expect(row.error).not.toBe('E-DESTINATION_REFUSED');
  });

  it('reuses a checked answer for the next deliveries (one lookup), and still connects only to the checked address', async () => {
    const created = await a.call('POST', '/webhooks', { token: a.member(A), body: { name: 'steady', url: `http://steady.test:${rx.port}/hook`, trigger: 'message_status_change' } });
    for (let i = 0; i < 3; i++) {
      await a.publish(MessageStatusChangedV1, {
        messageUuid: randomUUID(), accountId: A, streamId: '1', streamUid: 's', campaignId: null, sender: 'S', destination: '+14155552671', status: 'sent',
        outgoingStatus: null, error: null, vendorId: null, providerMessageId: null, sentAt: null, deliveredAt: null, mcc: null, mnc: null, occurredAt: new Date().toISOString(),
      });
      await a.deliveries.runOnce();
    }
    const rows = await a.sql<{ address: string }>(`SELECT request->>'address' AS address FROM webhooks.request_log WHERE webhook_id = $1`, [created.body.id]);
    await a.sql(`UPDATE webhooks.webhook SET active = false WHERE id = $1`, [created.body.id]);
    // the second DNS answer (127.0.0.1) was never asked for: three attempts, one lookup, all to the checked address
    expect(dns.aQueries('steady.test')).toBe(1);
    expect(rows).toEqual([{ address: PUBLIC }, { address: PUBLIC }, { address: PUBLIC }]);
    expect(rx.requests).toHaveLength(0);
  });

  it('refuses ports the operator did not allow', async () => {
    const strict = await startWebhooks({ allowLoopback: false, allowedPorts: [443] });
    try {
      const res = await strict.call('POST', '/webhooks', { token: strict.member(A), body: { name: 'x', url: 'http://example.com:25/hook', trigger: 'edr_info' } });
      expect([res.status, res.body.violations?.[0]?.message]).toEqual([400, expect.stringContaining('port 25')]);
    } finally {
      await strict.close();
    }
  });
});
