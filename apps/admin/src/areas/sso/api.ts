import { apiFetch } from '../../providers';
import { COMPLETE_SSO_EVENT, SSO_WS_PATH, type CompleteSsoData, type CrossdomainAuthAnswer, type SsoAccessRequest, type SsoWsServerMessage } from '@switchboard/contracts/src/sso';

export type { CompleteSsoData, SsoAccessRequest };

/** The Zoho Inbox sign-on calls (spec 7 Auth; docs/decisions/0042). */
export const ssoApi = {
  /** POST /sso/crossdomain_auth: the popup URL and the socket's cross_key; the binding cookie comes with the answer. */
  start: () => apiFetch<CrossdomainAuthAnswer>('/sso/crossdomain_auth', { method: 'POST', body: { type: 'zohoinbox' }, auth: false }),
  requests: () => apiFetch<SsoAccessRequest[]>('/sso/access_requests'),
  approve: (id: number) => apiFetch<SsoAccessRequest>(`/sso/access_requests/${id}/approve`, { method: 'POST' }),
  reject: (id: number) => apiFetch<SsoAccessRequest>(`/sso/access_requests/${id}/reject`, { method: 'POST' }),
};

/**
 * Opens the gateway's socket with the cross_key and resolves with the complete-sso data; a socket that closes or is
 * refused without it resolves with an error (the page shows "Error occurred").
 */
export function awaitCompleteSso(crossKey: string, onOpen: () => void): { done: Promise<CompleteSsoData>; cancel: () => void } {
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const ws = new WebSocket(`${scheme}://${window.location.host}${SSO_WS_PATH}?cross_key=${encodeURIComponent(crossKey)}`);
  let settled = false;
  const done = new Promise<CompleteSsoData>((resolve) => {
    const finish = (d: CompleteSsoData) => {
      if (settled) return;
      settled = true;
      resolve(d);
    };
    ws.addEventListener('open', onOpen);
    ws.addEventListener('message', (e) => {
      let m: SsoWsServerMessage;
      try {
        m = JSON.parse(String(e.data)) as SsoWsServerMessage;
      } catch (_e) {
        return;
      }
      if (m.type === COMPLETE_SSO_EVENT) finish(m.data);
      else if (m.type === 'error') finish({ status: 'error', message: m.message });
    });
    ws.addEventListener('close', () => finish({ status: 'error', message: 'the sign-on channel closed' }));
  });
  return {
    done,
    cancel: () => {
      settled = true;
      ws.close();
    },
  };
}
