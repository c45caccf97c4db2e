/** Fetch with a deadline, telling apart "never reached the server" (safe to retry) from "no answer" (unknown). */
export type HttpResult = { kind: 'response'; status: number; body: unknown; headers: Headers } | { kind: 'unreached'; error: string } | { kind: 'no_answer'; error: string };

const UNREACHED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET_BEFORE', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export async function postJson(url: string, body: unknown, opts: { headers?: Record<string, string>; timeoutMs?: number } = {}): Promise<HttpResult> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...opts.headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15000),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause;
    const code = cause?.code ?? '';
    if (UNREACHED.has(code)) return { kind: 'unreached', error: `${code}: ${url.replace(/bot[^/]+/, 'bot<token>')}` };
    return { kind: 'no_answer', error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
  const text = await res.text().catch(() => '');
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text
  }
  return { kind: 'response', status: res.status, body: parsed, headers: res.headers };
}
