import { context, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { z } from 'zod';
import { defineEvent, type EventEnvelope } from '@switchboard/contracts';
import { envelopeHeaders } from '../bus/delivery';
import { createEnvelope } from '../bus/event-bus';
import { InMemoryEventBus } from '../bus/in-memory-event-bus';
import { silentLogger } from '../bus/test-support';
import { currentTraceparent, startTracing, stopTracing, tracingEnabled } from './tracing';

const TOPIC = 'switchboard.test';
const Happened = defineEvent({ type: 'test.thing.happened', version: 1, topic: TOPIC as never, key: (d: { id: string }) => d.id, schema: z.object({ id: z.string() }) });
const Followed = defineEvent({ type: 'test.thing.followed', version: 1, topic: TOPIC as never, key: (d: { id: string }) => d.id, schema: z.object({ id: z.string() }) });

describe('tracing off (no SDK started)', () => {
  it('creates envelopes without a traceparent and hands deliveries to the handler unchanged', async () => {
    expect(tracingEnabled()).toBe(false);
    expect(currentTraceparent()).toBeUndefined();
    const event = createEnvelope(Happened, { id: 'a' }, { accountId: null, source: 'test' });
    expect('traceparent' in event).toBe(false);
    expect(Object.keys(envelopeHeaders(event))).toEqual(['id', 'type', 'version']);
    const bus = new InMemoryEventBus({ logger: silentLogger() });
    const seen: Array<string | undefined> = [];
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async () => void seen.push(currentTraceparent()) });
    await bus.start();
    await bus.publish([event]);
    await bus.drain();
    await bus.stop();
    expect(seen).toEqual([undefined]);
  });
});

describe('tracing on', () => {
  const exporter = new InMemorySpanExporter();
  beforeAll(() => startTracing({ serviceName: 'test', exporter }));
  afterAll(() => stopTracing());

  it('puts the active span into the envelope, and the consumer span is its child; events made in the handler continue the trace', async () => {
    const bus = new InMemoryEventBus({ logger: silentLogger() });
    const followed: EventEnvelope[] = [];
    await bus.subscribe({
      group: 'first',
      topics: [TOPIC],
      types: [Happened.type],
      handler: async (e) => bus.publish([createEnvelope(Followed, { id: e.key }, { accountId: null, source: 'test' })]),
    });
    await bus.subscribe({ group: 'second', topics: [TOPIC], types: [Followed.type], handler: async (e) => void followed.push(e) });
    await bus.start();

    const root = trace.getTracer('test').startSpan('request');
    const event = context.with(trace.setSpan(context.active(), root), () => createEnvelope(Happened, { id: 'k1' }, { accountId: null, source: 'test' }));
    root.end();
    const { traceId, spanId } = root.spanContext();
    expect(event.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(envelopeHeaders(event).traceparent).toBe(event.traceparent);

    await bus.publish([event]);
    await bus.drain();
    await bus.stop();

    const spans = exporter.getFinishedSpans();
    const first = spans.find((s) => s.name === 'test.thing.happened process');
    const second = spans.find((s) => s.name === 'test.thing.followed process');
    expect(first?.kind).toBe(SpanKind.CONSUMER);
    expect(first?.spanContext().traceId).toBe(traceId);
    expect(first?.parentSpanContext?.spanId).toBe(spanId);
    expect(first?.attributes['messaging.consumer.group.name']).toBe('first');
    // the event the first handler created carries the consumer span, and the second consumer is its child
    expect(followed[0].traceparent).toBe(`00-${traceId}-${first?.spanContext().spanId}-01`);
    expect(second?.spanContext().traceId).toBe(traceId);
    expect(second?.parentSpanContext?.spanId).toBe(first?.spanContext().spanId);
  });

  it('starts a new trace for an event that carries no traceparent, not the publisher\'s', async () => {
    exporter.reset();
    const bus = new InMemoryEventBus({ logger: silentLogger(), ack: 'handled' });
    await bus.subscribe({ group: 'g', topics: [TOPIC], handler: async () => undefined });
    await bus.start();
    const outer = trace.getTracer('test').startSpan('unrelated');
    const event = createEnvelope(Happened, { id: 'k2' }, { accountId: null, source: 'test' });
    await context.with(trace.setSpan(context.active(), outer), () => bus.publish([event]));
    await bus.drain();
    await bus.stop();
    outer.end();
    const consumer = exporter.getFinishedSpans().find((s) => s.kind === SpanKind.CONSUMER);
    expect(consumer).toBeDefined();
    expect(consumer?.spanContext().traceId).not.toBe(outer.spanContext().traceId);
    expect(consumer?.parentSpanContext).toBeUndefined();
  });
});
