/** What a delivery attempt sends and what came of it; the requests are made by `HostPool` (host-pool.ts). */
export interface SentRequest {
  uri: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface Outcome {
  status: 'success' | 'failed' | 'timeout';
  /** E-CONNECTION_TIMEOUT (spec 8) for a timeout; a short code for other failures; null on success. */
  error: string | null;
  response: { status: number; headers: Record<string, string>; body: string } | null;
  durationMs: number;
}

export const CONNECTION_TIMEOUT = 'E-CONNECTION_TIMEOUT';
