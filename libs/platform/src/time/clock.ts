/** The time a service's rules run on (expiries, windows, schedules, leases). Production binds SystemClock; tests move a ManualClock instead of sleeping. */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

export class ManualClock extends Clock {
  private t: number;
  constructor(start: Date | number = Date.now()) {
    super();
    this.t = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(at: Date | number): void {
    this.t = typeof at === 'number' ? at : at.getTime();
  }
}
