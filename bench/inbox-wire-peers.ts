/**
 * The providers and the agent of `inbox-wire-ws`, in a child process of their own, so that the measured process is the
 * platform alone, as in production: a local SMSC (a real SMPP 3.4 peer sending `deliver_sm`), the WhatsApp Cloud API
 * (its Graph answers for setting up the stream, and the signed webhook POSTs it sends), and the agent's websocket,
 * which stamps each event's arrival. A wire message is sent and its arrival taken here, on one clock; the ceiling's
 * events are sent by the platform process, so every time is `performance.timeOrigin + performance.now()` (the same
 * machine's clock in both processes).
 *
 * Driven over IPC by the parent (`{ id, cmd, ... }`, answered `{ id, ... }`); exits when the parent goes.
 */
import { WebSocket } from 'ws';
import { SmppPeer, WhatsAppPeer } from '@switchboard/dispatch';

export const WA_APP_SECRET = 'bench-wa-app-secret';
export const WA_TOKEN = 'EAAG-bench-token';
export const WA_BUSINESS = '1010101010';
export const WA_PHONE_ID = '2020202020';

/** Wire messages per channel: every message over SMPP, every one by WhatsApp webhook, or the two in turns. */
export type Channels = 'sms' | 'whatsapp' | 'both';

export interface DriveAnswer {
  /** [key, absolute ms] of every message this process sent (the wire phase only). */
  sent: Array<[string, number]>;
  /** [key, absolute ms] of every event of the phase the agent's socket received. */
  arrived: Array<[string, number]>;
  /** This process's CPU over the phase, ms. */
  cpuMs: number;
  /** Messages per second actually offered (the wire phase only). */
  offered: number;
  /** Webhook POSTs not answered 200 (the wire phase only). */
  webhookFailures: number;
  /** Those by answer: the HTTP status, or the client's error. */
  webhookAnswers: Record<string, number>;
}

type Command =
  | { id: number; cmd: 'binds' }
  | { id: number; cmd: 'connect'; wsUrl: string; room: string }
  | { id: number; cmd: 'drive'; label: string; total: number; rate: number; channels: Channels; webhookUrl: string; ourNumber: string; waitMs: number; first?: number }
  | { id: number; cmd: 'arm'; label: string }
  | { id: number; cmd: 'collect'; total: number; waitMs: number }
  | { id: number; cmd: 'stop' };

const now = (): number => performance.timeOrigin + performance.now();
const keyOf = (body: unknown): string => String(body ?? '').split(' ')[0];

async function main(): Promise<void> {
  const smsc = new SmppPeer({ systemId: 'acme', password: 'secret', receiptDelayMs: 200, record: false });
  const smppPort = await smsc.listen();
  const wa = new WhatsAppPeer(WA_APP_SECRET, new Set([WA_TOKEN]));
  wa.business(WA_BUSINESS, WA_TOKEN, [WA_PHONE_ID]);
  const waUrl = await wa.listen();
  let ws: WebSocket | null = null;
  /** Arrivals of the phase under way: its label, and each key's time. */
  let phase = '';
  let arrived = new Map<string, number>();
  let onArrival: (() => void) | null = null;
  let armedCpu = 0;

  const answer = (id: number, body: Record<string, unknown>) => process.send?.({ id, ...body });
  const waitFor = async (total: number, waitMs: number) => {
    const deadline = Date.now() + waitMs;
    while (arrived.size < total && Date.now() < deadline) {
      await new Promise<void>((r) => {
        onArrival = r;
        setTimeout(r, 100);
      });
      onArrival = null;
    }
  };
  const cpuMs = () => {
    const c = process.cpuUsage();
    return (c.user + c.system) / 1000;
  };

  process.on('message', (c: Command) => {
    void (async () => {
      switch (c.cmd) {
        case 'binds':
          return answer(c.id, { binds: smsc.binds });
        case 'connect': {
          ws = new WebSocket(c.wsUrl);
          ws.on('message', (d) => {
            const m = JSON.parse(d.toString()) as { type?: string; payload?: { message?: { content?: { body?: string } }; marker?: string } };
            if (m.type !== 'event') return;
            const key = keyOf(m.payload?.message?.content?.body ?? m.payload?.marker);
            if (!phase || !key.startsWith(phase) || arrived.has(key)) return;
            arrived.set(key, now());
            onArrival?.();
          });
          await new Promise((r) => ws?.once('open', r));
          ws.send(JSON.stringify({ type: 'join', room: c.room }));
          await new Promise((r) => setTimeout(r, 500));
          return answer(c.id, {});
        }
        case 'drive': {
          // each customer a number of their own (one conversation each), the key first in the text
          phase = c.label;
          arrived = new Map();
          const sent = new Map<string, number>();
          let webhookFailures = 0;
          const webhookAnswers: Record<string, number> = {};
          const failed = (why: string) => {
            webhookFailures++;
            webhookAnswers[why] = (webhookAnswers[why] ?? 0) + 1;
          };
          const cpu0 = cpuMs();
          const t0 = performance.now();
          for (let i = 0; i < c.total; i++) {
            const due = t0 + (i * 1000) / c.rate;
            const wait = due - performance.now();
            if (wait > 1) await new Promise((r) => setTimeout(r, wait));
            const key = `${c.label}${i}`;
            const text = `${key} where is my order?`;
            const whatsapp = c.channels === 'whatsapp' || (c.channels === 'both' && i % 2 === 1);
            sent.set(key, now());
            if (!whatsapp) {
              smsc.sendMo(`4917${String(60_000_000 + (c.first ?? 0) + i)}`, c.ourNumber.slice(1), text);
              continue;
            }
            const from = `4915${String(60_000_000 + (c.first ?? 0) + i)}`;
            const message = { from, id: `wamid.bench${(c.first ?? 0) + i}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } };
            const notification = WhatsAppPeer.notification(WA_PHONE_ID, { messages: [message], contacts: [{ wa_id: from, profile: { name: `Customer ${(c.first ?? 0) + i}` } }] });
            wa.deliver(c.webhookUrl, notification).then(
              (status) => void (status === 200 || failed(String(status))),
              (e: unknown) => failed(e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e)),
            );
          }
          const offered = c.total / ((performance.now() - t0) / 1000);
          await waitFor(c.total, c.waitMs);
          const a: DriveAnswer = { sent: [...sent], arrived: [...arrived], cpuMs: cpuMs() - cpu0, offered, webhookFailures, webhookAnswers };
          phase = '';
          return answer(c.id, a as unknown as Record<string, unknown>);
        }
        case 'arm':
          // the ceiling: the platform process sends; this socket stamps what arrives from now on
          phase = c.label;
          arrived = new Map();
          armedCpu = cpuMs();
          return answer(c.id, {});
        case 'collect': {
          const cpu0 = armedCpu;
          await waitFor(c.total, c.waitMs);
          const a: DriveAnswer = { sent: [], arrived: [...arrived], cpuMs: cpuMs() - cpu0, offered: 0, webhookFailures: 0, webhookAnswers: {} };
          phase = '';
          return answer(c.id, a as unknown as Record<string, unknown>);
        }
        case 'stop':
          ws?.close();
          await smsc.close();
          await wa.close();
          answer(c.id, {});
          return process.exit(0);
      }
    })().catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
  });
  process.on('disconnect', () => process.exit(0));
  process.send?.({ id: 0, smppPort, waUrl });
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
