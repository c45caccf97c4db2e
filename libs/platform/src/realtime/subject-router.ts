import { Logger } from '@nestjs/common';
import type { RealtimeMessage } from '@switchboard/contracts';
import type { RealtimeListener } from './realtime';
import { assertPattern } from './subjects';

interface Subscription {
  pattern: string;
  listener: RealtimeListener;
  closed: boolean;
}

class TrieNode {
  readonly children = new Map<string, TrieNode>();
  /** Patterns ending here. */
  readonly exact = new Set<Subscription>();
  /** Patterns ending with `>` right after this node. */
  readonly rest = new Set<Subscription>();

  get empty(): boolean {
    return this.children.size === 0 && this.exact.size === 0 && this.rest.size === 0;
  }
}

/** Deliveries waiting for the next turn of the event loop; beyond this the oldest are dropped (with a warning). */
const MAX_PENDING = 100_000;

/**
 * Local subscriptions by subject pattern, matched through a token trie (cost follows the subject's depth, not the
 * number of subscribers). Delivery is asynchronous and in publish order, across subscriptions too (a client
 * following two topics sees their events interleaved as published); a listener that throws is logged and does
 * not affect the others.
 */
export class SubjectRouter {
  private readonly root = new TrieNode();
  private readonly logger = new Logger('Realtime');
  private count = 0;
  private pending: Array<[Subscription, RealtimeMessage]> = [];
  private scheduled = false;

  get size(): number {
    return this.count;
  }

  add(pattern: string, listener: RealtimeListener): () => void {
    assertPattern(pattern);
    const sub: Subscription = { pattern, listener, closed: false };
    const tokens = pattern.split('.');
    let node = this.root;
    for (const [i, t] of tokens.entries()) {
      if (t === '>' && i === tokens.length - 1) {
        node.rest.add(sub);
        this.count++;
        return () => this.remove(sub);
      }
      let child = node.children.get(t);
      if (!child) node.children.set(t, (child = new TrieNode()));
      node = child;
    }
    node.exact.add(sub);
    this.count++;
    return () => this.remove(sub);
  }

  /** Queues the message for every matching subscription; delivery happens on a later turn of the event loop. */
  dispatch(message: RealtimeMessage): number {
    const matches: Subscription[] = [];
    this.collect(this.root, message.subject.split('.'), 0, matches);
    for (const sub of matches) this.pending.push([sub, message]);
    if (this.pending.length > MAX_PENDING) {
      this.pending.splice(0, this.pending.length - MAX_PENDING);
      this.logger.warn('realtime listeners are not keeping up: dropped the oldest pending deliveries');
    }
    if (matches.length && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.drain());
    }
    return matches.length;
  }

  clear(): void {
    const all: Subscription[] = [];
    const walk = (n: TrieNode) => {
      all.push(...n.exact, ...n.rest);
      n.children.forEach(walk);
    };
    walk(this.root);
    all.forEach((s) => this.remove(s));
  }

  private collect(node: TrieNode, tokens: string[], i: number, out: Subscription[]): void {
    if (i === tokens.length) {
      out.push(...node.exact);
      return;
    }
    out.push(...node.rest);
    const literal = node.children.get(tokens[i]);
    if (literal) this.collect(literal, tokens, i + 1, out);
    const star = node.children.get('*');
    if (star) this.collect(star, tokens, i + 1, out);
  }

  private drain(): void {
    this.scheduled = false;
    // Messages that listeners publish while this batch runs go to the next turn, so I/O is never starved.
    const batch = this.pending;
    this.pending = [];
    for (const [sub, message] of batch) {
      if (sub.closed) continue;
      try {
        const result: unknown = sub.listener(message);
        // A listener typed as returning void may still be async; its rejection must not become unhandled.
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          (result as Promise<unknown>).then(undefined, (e: unknown) => this.listenerFailed(sub, e));
        }
      } catch (e) {
        this.listenerFailed(sub, e);
      }
    }
  }

  private listenerFailed(sub: Subscription, e: unknown): void {
    this.logger.error(`realtime listener on ${sub.pattern} failed: ${e instanceof Error ? e.message : String(e)}`);
  }

  private remove(sub: Subscription): void {
    if (sub.closed) return;
    sub.closed = true;
    this.count--;
    const tokens = sub.pattern.split('.');
    const path: Array<[TrieNode, string]> = [];
    let node: TrieNode | undefined = this.root;
    for (const [i, t] of tokens.entries()) {
      if (t === '>' && i === tokens.length - 1) break;
      path.push([node, t]);
      node = node.children.get(t);
      if (!node) return;
    }
    if (tokens[tokens.length - 1] === '>') node.rest.delete(sub);
    else node.exact.delete(sub);
    // Prune nodes left empty so patterns of closed connections (one per account and topic) do not accumulate.
    for (let i = path.length - 1; i >= 0; i--) {
      const [parent, token] = path[i];
      const child = parent.children.get(token);
      if (!child || !child.empty) break;
      parent.children.delete(token);
    }
  }
}
