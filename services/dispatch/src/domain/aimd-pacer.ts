import type { Now } from './token-bucket';

export interface AimdPacerOptions {
  /** The configured submits/s of the bind: the pacer never goes above it. 0 or absent: no configured ceiling. */
  maxRate?: number;
  /** The pacer never goes below this. Default 1/s. */
  minRate?: number;
  /** Credit the bind may bank while its event loop is busy, in ms of traffic at the current rate. Default 100. */
  burstMs?: number;
  /** Additive increase per second while the rate is the limit, as a share of the rate last throttled. Default 0.05. */
  probeShare?: number;
  /** After a halving the rate doubles every 100 ms back up to this share of the rate last throttled. Default 0.9. */
  recoverShare?: number;
  now?: Now;
}

/** What tests, health and benchmarks read of a pacer. */
export interface PacerState {
  /** Current submits/s allowed; null while nothing was ever throttled on an unpaced bind. */
  rate: number | null;
  /** The rate the carrier last throttled (its accepted rate then), null before the first throttle. */
  throttledAt: number | null;
  accepted: number;
  throttled: number;
  /** Times the rate was halved (once per throttle episode, not once per refused submit). */
  decreases: number;
}

const SLOTS = 10;
const UNMEASURED_GUESS = 100;
const THROTTLED_BURST_MS = 20;
const SLOT_MS = 100;

/**
 * Per-bind send rate that finds a carrier's real limit (AIMD). While the carrier accepts and the bind has work, the
 * rate grows additively (`probeShare` of the last throttled rate per second); an ESME_RTHROTTLED halves it, once
 * per episode: a refusal for a submit sent before the last halving says nothing new (TCP's once-per-window rule).
 * After a halving the rate doubles every 100 ms back to `recoverShare` of what the carrier accepted when it
 * throttled, then probes additively again: the carrier gets its pause, and the bind spends most of its time just
 * under the limit instead of on a sawtooth averaging 75% of it. It never exceeds `maxRate`.
 *
 * Sending is gated like a token bucket (GCRA, `take`), at the current rate with `burstMs` of credit.
 */
export class AimdPacer {
  private rateNow: number;
  private readonly max: number;
  private readonly min: number;
  private readonly burstMs: number;
  private readonly probeShare: number;
  private readonly recoverShare: number;
  private readonly now: Now;
  /** Theoretical arrival time of the GCRA at the current rate. */
  private tat: number;
  private epochNo = 0;
  private lastThrottled = 0;
  private recoverTo = 0;
  private grownAt: number;
  /** Since when the rate is above the last throttled one (new ground): the probe step doubles every second there. */
  private aboveSince = -1;
  /** Start of the current run of accepted submits (after a second without any), and the latest one. */
  private busySince = -Infinity;
  private acceptedAt = -Infinity;
  /** Accepted submits per 100 ms slot over the last second, to measure what the carrier really took. */
  private readonly slots = new Array<number>(SLOTS).fill(0);
  private readonly slotAt = new Array<number>(SLOTS).fill(-1);
  private readonly counters = { accepted: 0, throttled: 0, decreases: 0 };

  constructor(o: AimdPacerOptions = {}) {
    this.now = o.now ?? Date.now;
    this.max = o.maxRate && o.maxRate > 0 ? o.maxRate : Infinity;
    this.min = Math.min(Math.max(0.1, o.minRate ?? 1), this.max);
    this.burstMs = o.burstMs ?? 100;
    this.probeShare = o.probeShare ?? 0.05;
    this.recoverShare = o.recoverShare ?? 0.9;
    this.rateNow = this.max;
    this.tat = this.now();
    this.grownAt = this.now();
  }

  /** Current rate (Infinity: unpaced). */
  get rate(): number {
    return this.rateNow;
  }

  /** Changes with every halving: a submit carries the epoch it was sent in. */
  get epoch(): number {
    return this.epochNo;
  }

  state(): PacerState {
    return {
      rate: Number.isFinite(this.rateNow) ? Math.round(this.rateNow * 10) / 10 : null,
      throttledAt: this.lastThrottled > 0 ? Math.round(this.lastThrottled * 10) / 10 : null,
      ...this.counters,
    };
  }

  private burst(): number {
    // Once a carrier has throttled, the bind sends evenly: a catch-up burst after an event-loop stall would draw a
    // refusal from a carrier that meters short windows, even with the rate below its limit.
    const ms = this.lastThrottled > 0 ? Math.min(this.burstMs, THROTTLED_BURST_MS) : this.burstMs;
    return Math.max(1, (this.rateNow * ms) / 1000);
  }

  /** 0 when a submit may go now (its slot taken), else the ms until one may. */
  take(): number {
    if (this.rateNow === Infinity) return 0;
    const t = this.now();
    const interval = 1000 / this.rateNow;
    const level = this.burst() - Math.max(0, this.tat - t) / interval;
    if (level >= 1 - 1e-9) {
      this.tat = Math.max(this.tat, t) + interval;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - level) * interval));
  }

  /** Gives back the slot of a submit that was not written after all. */
  refund(): void {
    if (this.rateNow === Infinity) return;
    this.tat = Math.max(this.now(), this.tat - 1000 / this.rateNow);
  }

  /** A submit_sm_resp OK. `backlogged`: the bind had more waiting, so the rate, not the traffic, was the limit. */
  onAccepted(backlogged: boolean): void {
    this.counters.accepted++;
    const t = this.now();
    if (t - this.acceptedAt > 1000) this.busySince = t;
    this.acceptedAt = t;
    const slot = Math.floor(t / SLOT_MS);
    const i = slot % SLOTS;
    if (this.slotAt[i] !== slot) {
      this.slotAt[i] = slot;
      this.slots[i] = 0;
    }
    this.slots[i]++;
    if (this.rateNow >= this.max || !backlogged) {
      this.grownAt = t;
      return;
    }
    const dt = t - this.grownAt;
    if (dt <= 0) return;
    this.grownAt = t;
    let next: number;
    if (this.rateNow < this.recoverTo) {
      next = Math.min(this.recoverTo, this.rateNow * 2 ** (dt / 100));
    } else {
      // Up to the rate last throttled: additive. Past it, the carrier's limit was underestimated or has risen: the
      // step doubles with every second without a throttle, so a higher limit is found in a few seconds.
      let step = Math.max(1, this.probeShare * this.lastThrottled);
      if (this.rateNow > this.lastThrottled) {
        if (this.aboveSince < 0) this.aboveSince = t;
        step *= 2 ** Math.min(10, Math.floor((t - this.aboveSince) / 1000));
      }
      next = this.rateNow + (step * dt) / 1000;
    }
    this.setRate(Math.min(next, this.max));
  }

  /**
   * ESME_RTHROTTLED (or queue full) for a submit sent in `sentEpoch`. Halves the rate if that submit was sent at the
   * current rate; answers whether it did.
   */
  onThrottled(sentEpoch: number): boolean {
    this.counters.throttled++;
    if (sentEpoch !== this.epochNo) return false;
    // The rate that drew the refusal is just above the carrier's limit. An unpaced bind has none: it starts from what
    // the carrier took lately, or with no measure a guess. A guess too high costs little (the bind still sends at the
    // carrier's limit while it is refused, and each episode takes off a tenth within a few hundred ms); one too low
    // costs seconds of probing.
    let base = this.rateNow;
    if (base === Infinity) {
      const accepted = this.acceptedRate();
      base = accepted > 0 ? accepted : UNMEASURED_GUESS;
    }
    base = Math.max(this.min, base);
    this.lastThrottled = base;
    this.recoverTo = Math.min(this.max, this.recoverShare * base);
    this.setRate(Math.max(this.min, base / 2));
    this.aboveSince = -1;
    this.epochNo++;
    this.counters.decreases++;
    this.grownAt = this.now();
    return true;
  }

  /** Accepted submits per second over the last second (or since traffic started, if more recent). */
  private acceptedRate(): number {
    const t = this.now();
    const slot = Math.floor(t / SLOT_MS);
    let n = 0;
    let oldest = slot;
    for (let k = 0; k < SLOTS; k++) {
      const s = this.slotAt[k];
      if (s > slot - SLOTS && s <= slot && this.slots[k] > 0) {
        n += this.slots[k];
        if (s < oldest) oldest = s;
      }
    }
    if (n === 0) return 0;
    const spanMs = Math.max(20, t - Math.max(oldest * SLOT_MS, this.busySince));
    return (n * 1000) / spanMs;
  }

  /** Changes the rate keeping the slots already handed out: a debt of N submits stays N submits at the new rate. */
  private setRate(rate: number): void {
    const t = this.now();
    if (Number.isFinite(this.rateNow)) {
      const debt = Math.max(0, this.tat - t) / (1000 / this.rateNow);
      this.tat = t + debt * (1000 / rate);
    } else {
      this.tat = t;
    }
    this.rateNow = rate;
  }
}
