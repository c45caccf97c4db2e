import { context, propagation, trace, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Context, type Span, type TracerProvider } from '@opentelemetry/api';
import type { EventEnvelope } from '@switchboard/contracts';
import type { NextFunction, Request, Response } from 'express';
import { routeOf } from '../metrics/metrics';

// OpenTelemetry traces (docs/decisions/0039-observability.md). The code paths use @opentelemetry/api only; with no SDK
// started (the default) every entry point below returns after one boolean check, so the hot paths (stream API, dispatch,
// stats ingest) pay nothing for tracing.

const TRACER = 'switchboard';
let enabled = false;
let provider: (TracerProvider & { shutdown(): Promise<void>; forceFlush(): Promise<void> }) | null = null;

/** True once startTracing registered an SDK in this process. */
export const tracingEnabled = (): boolean => enabled;

const tracer = () => trace.getTracer(TRACER);

/** A span context as a W3C `traceparent` header value: `00-<trace id>-<span id>-<flags>`. */
function format(span: Span): string | undefined {
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${sc.traceFlags.toString(16).padStart(2, '0')}`;
}

/** The active span's `traceparent`, for an event created now; undefined when tracing is off or no span is active. */
export function currentTraceparent(): string | undefined {
  if (!enabled) return undefined;
  const span = trace.getActiveSpan();
  return span ? format(span) : undefined;
}

/** The context a W3C `traceparent` value names (invalid or absent values give the root context). */
export function contextOf(traceparent: string | undefined, parent: Context = context.active()): Context {
  if (!traceparent) return parent;
  return propagation.extract(parent, { traceparent });
}

/** Adds `traceparent` (and `tracestate`) of the active span to outgoing HTTP headers; a no-op when tracing is off. */
export function injectTraceHeaders(headers: Record<string, string | string[] | undefined>): void {
  if (!enabled) return;
  propagation.inject(context.active(), headers, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
}

/**
 * Runs a bus delivery inside a CONSUMER span, child of the span that created the event (the envelope's
 * `traceparent`), so events the handler creates continue the same trace. Without tracing: `work()` and nothing else.
 */
export function withConsumerSpan<T>(envelope: EventEnvelope, group: string, topic: string, work: () => Promise<T>): Promise<T> {
  if (!enabled) return work();
  // The envelope alone names the parent: in memory the delivery may run in the publisher's async context.
  const parent = contextOf(envelope.traceparent, ROOT_CONTEXT);
  const span = tracer().startSpan(
    `${envelope.type} process`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'switchboard',
        'messaging.operation.type': 'process',
        'messaging.destination.name': topic,
        'messaging.consumer.group.name': group,
        'messaging.message.id': envelope.id,
        'switchboard.event.type': envelope.type,
        'switchboard.event.key': envelope.key,
      },
    },
    parent,
  );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await work();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A SERVER span per HTTP request, continuing an incoming `traceparent`; named `<METHOD> <route template>` (the
 * metrics' route label) when the response finishes. Mounted by configureHttpApp; a plain `next()` without tracing.
 */
export function httpTracingMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (!enabled) return next();
  const parent = propagation.extract(context.active(), req.headers);
  const span = tracer().startSpan(req.method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method } }, parent);
  res.once('finish', () => {
    const route = routeOf(req);
    span.updateName(`${req.method} ${route}`);
    span.setAttribute('http.route', route);
    span.setAttribute('http.response.status_code', res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
  context.with(trace.setSpan(parent, span), next);
}

export interface TracingOptions {
  serviceName: string;
  /**
   * Where spans go. Default: the OTLP HTTP exporter, configured by the standard OTEL_EXPORTER_OTLP_* variables,
   * behind a BatchSpanProcessor. A given exporter (tests: an InMemorySpanExporter) gets a SimpleSpanProcessor.
   */
  exporter?: import('@opentelemetry/sdk-trace-base').SpanExporter;
}

/**
 * Registers the OpenTelemetry SDK for this process: a NodeTracerProvider (async-local context, W3C trace-context
 * propagation). Entry points call `startTracingFromEnv`, which does this only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
export function startTracing(options: TracingOptions): void {
  if (enabled) return;
  /* eslint-disable @typescript-eslint/no-require-imports -- the SDK is loaded only by processes that trace */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { ATTR_SERVICE_NAME } = require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions');
  let processor;
  if (options.exporter) processor = new SimpleSpanProcessor(options.exporter);
  else {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
    processor = new BatchSpanProcessor(new OTLPTraceExporter());
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  const p = new NodeTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }), spanProcessors: [processor] });
  p.register();
  provider = p;
  enabled = true;
}

/** startTracing with the OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set; nothing otherwise. */
export function startTracingFromEnv(serviceName: string, env: NodeJS.ProcessEnv = process.env): boolean {
  // The standard OpenTelemetry variables (README, "Distributed mode"); the OTLP exporter reads the rest of its own.
  const endpoint = ENDPOINT_VARS.map((v) => env[v]?.trim()).find(Boolean);
  if (!endpoint) return false;
  startTracing({ serviceName: env[SERVICE_NAME_VAR]?.trim() || serviceName });
  return true;
}

const ENDPOINT_VARS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'];
const SERVICE_NAME_VAR = 'OTEL_SERVICE_NAME';

/** Flushes and stops the SDK (on shutdown, and between tests); tracing is off again afterwards. */
export async function stopTracing(): Promise<void> {
  const p = provider;
  provider = null;
  enabled = false;
  if (!p) return;
  await p.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
}

const noop = (): void => undefined;

/**
 * For a proxy: a CLIENT span continuing the incoming request's `traceparent`, injected into the outgoing headers so
 * the upstream's server span is its child. Returns the function that ends it (with the answered status). Without
 * tracing: nothing is started and the client's own `traceparent` header passes through untouched.
 */
export function proxySpan(name: string, incoming: Record<string, string | string[] | undefined>, outgoing: Record<string, unknown>): (status?: number) => void {
  if (!enabled) return noop;
  const parent = propagation.extract(context.active(), incoming);
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT }, parent);
  propagation.inject(trace.setSpan(parent, span), outgoing, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
  return (status) => {
    if (status !== undefined) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
}
