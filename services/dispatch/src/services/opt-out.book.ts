import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { ALL_SENDERS, inboundAddress } from '@switchboard/contracts';
import { DISPATCH_CONNECTION } from '../dispatch.options';

/**
 * How often a process reads the opt-outs again: one recorded by another dispatch process (the one that took the STOP
 * reply) blocks sends here within this period; the process that took it blocks at once.
 */
export const OPT_OUT_RELOAD_MS = 5_000;

/**
 * Who opted out of what, in memory for the send path (`dispatch.opt_out`): per account, the contact's number (or chat
 * id) with our sender's address, or `*` for every sender of the account. The check is synchronous and costs nothing
 * for accounts without opt-outs.
 */
@Injectable()
export class OptOutBook implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly log = new Logger(OptOutBook.name);
  private byAccount = new Map<string, Set<string>>();
  private readonly senderAddress = new Map<string, string>();
  private timer?: NodeJS.Timeout;

  constructor(@InjectDataSource(DISPATCH_CONNECTION) private readonly ds: DataSource) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.load();
    this.timer = setInterval(() => {
      this.load().catch((e: unknown) => this.log.warn(`reloading opt-outs failed: ${String(e)}`));
    }, OPT_OUT_RELOAD_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    if (this.timer) clearInterval(this.timer);
  }

  async load(): Promise<void> {
    const rows = await this.ds.query<Array<{ account_id: string; sender: string; phone: string }>>(`SELECT account_id::text, sender, phone FROM dispatch.opt_out`);
    const next = new Map<string, Set<string>>();
    for (const r of rows) {
      let set = next.get(r.account_id);
      if (!set) next.set(r.account_id, (set = new Set()));
      set.add(`${r.sender}\u0000${r.phone}`);
    }
    this.byAccount = next;
  }

  /** After this process recorded an opt-out or opt-in (the reload would show it later). */
  set(accountId: string, sender: string, phone: string, optedOut: boolean): void {
    let set = this.byAccount.get(accountId);
    if (optedOut) {
      if (!set) this.byAccount.set(accountId, (set = new Set()));
      set.add(`${sender}\u0000${phone}`);
      return;
    }
    set?.delete(`${sender}\u0000${phone}`);
    set?.delete(`${ALL_SENDERS}\u0000${phone}`);
  }

  /** Whether a send from `sender` to `destination` on `channel` goes to someone who opted out. */
  blocked(accountId: string, channel: string, sender: string, destination: string): boolean {
    const set = this.byAccount.get(accountId);
    if (!set || set.size === 0) return false;
    // streams sends E.164 already: parsed only when it is written another way
    const phone = channel !== 'sms' && channel !== 'whatsapp' ? destination : /^\+[1-9]\d{5,14}$/.test(destination) ? destination : (inboundAddress('sms', destination) ?? destination);
    if (set.has(`${ALL_SENDERS}\u0000${phone}`)) return true;
    return set.has(`${this.senderKey(channel, sender)}\u0000${phone}`);
  }

  /** The sender part of an opt-out: our address as `inboundAddress()` spells it. */
  senderKey(channel: string, sender: string): string {
    const key = `${channel}\u0000${sender}`;
    let a = this.senderAddress.get(key);
    if (a === undefined) {
      a = inboundAddress(channel === 'whatsapp' || channel === 'telegram' ? channel : 'sms', sender) ?? sender;
      if (this.senderAddress.size > 10_000) this.senderAddress.clear();
      this.senderAddress.set(key, a);
    }
    return a;
  }
}
