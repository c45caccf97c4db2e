import { useEffect, useRef, useState } from 'react';
import { validToken } from '../../providers/http';
import { readTokens } from '../../providers/token-store';
import type { RealtimeFrame } from './types';

const RECONNECT_MS = 5000;

export interface RealtimeHandlers {
  onFrame: (frame: RealtimeFrame) => void;
  /** Messages were lost (overflow, history gone, reconnect): refetch what is shown. */
  onResync?: () => void;
}

/**
 * Follows `/realtime?topic=..` (server-sent events of the caller's account; services/gateway/src/realtime). The SSE
 * event name is the topic and `data` a JSON frame `{ id, topic, type, data, ... }`. EventSource cannot send headers,
 * so the token travels as `access_token`; when the stream ends (token expired, server restart) it reconnects with a
 * fresh token and the last event id. Answers whether the stream is open.
 */
export function useRealtime(topics: readonly string[], handlers: RealtimeHandlers, enabled = true): boolean {
  const [open, setOpen] = useState(false);
  const latest = useRef(handlers);
  latest.current = handlers;
  const key = topics.join(',');

  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return undefined;
    let source: EventSource | null = null;
    let timer: number | undefined;
    let stopped = false;
    let lastId: string | null = null;
    let everOpened = false;

    const dispatch = (e: MessageEvent<string>) => {
      if (e.lastEventId) lastId = e.lastEventId;
      try {
        latest.current.onFrame(JSON.parse(e.data) as RealtimeFrame);
      } catch (_e) {
        // a frame that is not JSON is not for us
      }
    };

    const reconnect = () => {
      source?.close();
      source = null;
      setOpen(false);
      if (!stopped) timer = window.setTimeout(() => void connect(), RECONNECT_MS);
    };

    const connect = async () => {
      if (stopped || !readTokens()) return;
      const token = await validToken().catch(() => null);
      if (stopped || !token) return;
      const q = new URLSearchParams();
      for (const t of key.split(',')) q.append('topic', t);
      q.set('access_token', token);
      if (lastId) q.set('lastEventId', lastId);
      const es = new EventSource(`/realtime?${q.toString()}`);
      source = es;
      es.onopen = () => {
        setOpen(true);
        // a stream opened again may have missed frames between the two connections
        if (everOpened && !lastId) latest.current.onResync?.();
        everOpened = true;
      };
      for (const t of key.split(',')) es.addEventListener(t, dispatch as EventListener);
      es.addEventListener('warning', () => latest.current.onResync?.());
      es.addEventListener('token_expired', reconnect);
      es.onerror = () => {
        // EventSource retries by itself while CONNECTING; a CLOSED stream (401, 503) is reopened with a new token
        if (es.readyState === EventSource.CLOSED) reconnect();
        else setOpen(false);
      };
    };

    void connect();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
      setOpen(false);
    };
  }, [key, enabled]);

  return open;
}
