import { EventBus, Mailer, type OutgoingEvent } from '@switchboard/platform';

/** The gateway neither publishes nor consumes domain events; a call means a module that needs Kafka was loaded here by mistake. */
export class RefusingEventBus extends EventBus {
  async publish(_events: OutgoingEvent[]): Promise<void> {
    throw new Error('the gateway has no event bus: it does not publish domain events');
  }
  async subscribe(): Promise<void> {
    throw new Error('the gateway has no event bus: it does not consume domain events');
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
}

export class RefusingMailer extends Mailer {
  async send(): Promise<void> {
    throw new Error('the gateway does not send email');
  }
}
