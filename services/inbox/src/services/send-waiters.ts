import { Injectable } from '@nestjs/common';

export interface SendOutcome {
  outcome: 'accepted' | 'refused' | 'not_authenticated';
  error: string | null;
}

/** HTTP requests waiting for streams' answer to their send, in this process (others find it in the database). */
@Injectable()
export class SendWaiters {
  private readonly waiting = new Map<string, Array<(o: SendOutcome) => void>>();

  wait(messageUuid: string, ms: number): Promise<SendOutcome | null> {
    return new Promise((resolve) => {
      const done = (o: SendOutcome | null) => {
        clearTimeout(timer);
        const list = this.waiting.get(messageUuid)?.filter((f) => f !== done);
        if (list?.length) this.waiting.set(messageUuid, list);
        else this.waiting.delete(messageUuid);
        resolve(o);
      };
      const timer = setTimeout(() => done(null), ms);
      timer.unref();
      this.waiting.set(messageUuid, [...(this.waiting.get(messageUuid) ?? []), done]);
    });
  }

  settle(messageUuid: string, o: SendOutcome): void {
    for (const f of this.waiting.get(messageUuid) ?? []) f(o);
  }
}
