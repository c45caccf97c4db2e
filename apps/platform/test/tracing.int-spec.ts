import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { ALL_PERMISSIONS, flattenStatusBatches, MessageStatusChangedV1, MessageStatusesChangedV1, Topics, type EventEnvelope } from '@switchboard/contracts';
import { InMemoryEventBus, startTracing, stopTracing } from '@switchboard/platform';
import { createTestApp, type TestApp } from '@switchboard/platform/testing';
import { AccountsBootstrapService } from '@switchboard/accounts';
import { SmppPeer } from '@switchboard/dispatch';
import { GatewayModule } from '@switchboard/gateway';
import { embeddedServiceModules } from '../src/embedded-server';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read field by field

const OUR_NUMBER = '+4930111111';

/**
 * OpenTelemetry across the platform (docs/decisions/0039-observability.md): one send through the stream API to the
 * local SMSC (a real SMPP 3.4 peer sending receipts) is one trace, from the HTTP request through streams' accepted
 * event, dispatch's handling of it, to the status change the SMSC's delivery receipt causes.
 */
describe('one send is one trace from the stream API to the delivery receipt', () => {
  const exporter = new InMemorySpanExporter();
  let t: TestApp;
  let smsc: SmppPeer;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-tracing-'));
  let account = '';
  let streamId = '';
  const statuses: EventEnvelope[] = [];
  const admin = () => t.token({ sub: '1', acc: account, perms: [...ALL_PERMISSIONS], sa: true });
  const call = async (method: string, p: string, body?: unknown, auth = `Bearer ${admin()}`, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${t.url}/api${p}`, { method, headers: { authorization: auth, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  };
  const until = async <T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, tries = 600): Promise<T> => {
    for (let i = 0; i < tries; i++) {
      if (t.bus instanceof InMemoryEventBus) await t.bus.drain();
      const v = await probe();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`not reached: ${what}`);
  };

  beforeAll(async () => {
    startTracing({ serviceName: 'switchboard-test', exporter });
    smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 100 });
    const port = await smsc.listen();
    t = await createTestApp(({ keys }) => ({
      imports: [...embeddedServiceModules({ privateKey: keys.privateKey, dataDir, appUrl: 'http://127.0.0.1:3000' }), GatewayModule.register({ mode: 'embedded' })],
      bus: new InMemoryEventBus({ ack: 'handled', partitions: 16 }),
    }));
    // dispatch's status changes, as the per-message events a batch stands for (one batch a write batch, the default since docs/decisions/0173)
    await t.bus.subscribe({ group: 'tracing-test', topics: [Topics.Dispatch], types: [MessageStatusChangedV1.type, MessageStatusesChangedV1.type], handler: async (e) => void statuses.push(...flattenStatusBatches([e])) });
    account = String((await t.app.get(AccountsBootstrapService).seed({ demoAccountName: 'Demo account' })).demoAccountId);
    const vendor = await call('POST', '/service_type_manager/vendor', { name: 'Acme SMSC', service_type: 'sms', adapter: 'smpp', carrier: 'Acme', currency: 'EUR', config: { host: '127.0.0.1', port, systemId: 'acme', password: 'secret', sourceTon: 1, sourceNpi: 1 } });
    expect(vendor.status).toBe(201);
    expect((await call('PUT', '/service_type_manager/countries_mapping', { iso2: 'DE', serviceType: 'sms', vendorIds: [String(vendor.body.id)] })).status).toBe(200);
    await call('POST', '/service_type_manager/refresh', {});
    const sender = await call('POST', '/senders', { name: 'Our number', value: OUR_NUMBER, type: 'inbound-outbound' });
    expect(sender.status).toBe(201);
    await call('PUT', `/senders/superadmin/${sender.body.id as number}`, { approved: 1 });
    const stream = await call('POST', '/streams', { name: 'Traced', streamType: 4, sender: OUR_NUMBER });
    expect(stream.status).toBe(201);
    streamId = String(stream.body.id);
    await until(() => smsc.binds > 0, 'the bind');
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await smsc?.close();
    await stopTracing();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('shares one trace id between the API request, the accepted event, dispatch and the receipt status change', async () => {
    const streamToken = String((await until(async () => (await call('GET', `/streams/token/${streamId}`)).body.token as string, 'the stream token')));
    // the caller's own trace: the API span continues it
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const sent = await call('POST', '/streams/messages', { phone: '+4915112345678', message: 'Traced hello' }, streamToken, { traceparent: `00-${callerTrace}-00f067aa0ba902b7-01` });
    expect(sent.status).toBe(202);
    const uuid = String(sent.body.message_uuid);
    await until(async () => (await call('GET', `/streams/message_status?message_uuid=${uuid}`)).body.status === 'delivered', 'delivered in streams');
    const delivered = await until(() => statuses.find((e) => (e.data as Json).messageUuid === uuid && (e.data as Json).status === 'delivered'), 'the delivered status event');

    const spans = () => exporter.getFinishedSpans();
    const api = spans().find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /api/streams/messages');
    expect(api?.spanContext().traceId).toBe(callerTrace);
    expect(api?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    const consumed = (type: string, group?: string) =>
      spans().filter((s) => s.kind === SpanKind.CONSUMER && s.attributes['switchboard.event.type'] === type && s.attributes['switchboard.event.key'] === uuid && (!group || s.attributes['messaging.consumer.group.name'] === group));
    // streams' accepted event, handled by dispatch's sender group
    const accepted = consumed('streams.message.accepted', 'dispatch.sender');
    expect(accepted.map((s) => s.spanContext().traceId)).toEqual([callerTrace]);
    expect(accepted[0].parentSpanContext?.spanId).toBe(api?.spanContext().spanId);
    // the receipt's status change continues the trace of the accepted event's handling, and so do its consumers
    expect(delivered.traceparent).toBe(`00-${callerTrace}-${accepted[0].spanContext().spanId}-01`);
    const statusSpans = await until(() => {
      const found = consumed(MessageStatusChangedV1.type).filter((s) => s.attributes['messaging.message.id'] === delivered.id);
      return found.length > 0 && found;
    }, 'the consumer spans of the delivered status');
    expect(new Set(statusSpans.map((s) => s.spanContext().traceId))).toEqual(new Set([callerTrace]));
    // the groups that take a delivered chunk in one call keep a consumer span an event (docs/decisions/0160)
    const chunked = await until(() => {
      const found = consumed(MessageStatusChangedV1.type, 'streams.status-projector').filter((s) => s.attributes['messaging.message.id'] === delivered.id);
      return found.length > 0 && found;
    }, "streams' status projection's span of the delivered status");
    expect(chunked.map((s) => s.spanContext().traceId)).toEqual([callerTrace]);
  }, 60_000);
});
