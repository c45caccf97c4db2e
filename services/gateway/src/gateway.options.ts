export type GatewayMode = 'embedded' | 'distributed';

export interface GatewayRealtimeOptions {
  /** Comment frame interval keeping proxies from closing idle streams. Default 15 000 ms. */
  heartbeatMs?: number;
  /** Messages waiting for one slow client before the oldest are dropped. Default 1000. */
  maxQueue?: number;
  /** End the stream when the access token expires, so a revoked session stops receiving. Default true. */
  closeOnTokenExpiry?: boolean;
  /** SSE `retry:` hint for the browser's reconnect delay. Default 3000 ms. */
  retryMs?: number;
}

export interface GatewayProxyOptions {
  /** Idle time (no bytes either way) before an upstream call is abandoned with 504. Default 30 000 ms. */
  timeoutMs?: number;
  /** Overrides of the route table (first path segment under /api -> service name). */
  table?: Record<string, string>;
}

export interface GatewayOptions {
  /** embedded: every module in-process, no proxy. distributed: /api/* goes to the owning service. */
  mode: GatewayMode;
  /** The admin build (Vite `dist`): served at `/` with SPA fallback when given. */
  adminDistDir?: string;
  /** Distributed mode: service name -> base URL, e.g. `{ auth: 'http://auth:3001' }`. */
  routes?: Record<string, string>;
  realtime?: GatewayRealtimeOptions;
  proxy?: GatewayProxyOptions;
}

export const GATEWAY_OPTIONS = Symbol('GATEWAY_OPTIONS');
