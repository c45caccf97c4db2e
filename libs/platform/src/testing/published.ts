import type { EventEnvelope } from '@switchboard/contracts';
import type { EventBus, OutgoingEvent, PublishOptions } from '../bus/event-bus';

/**
 * Records a copy of every event published on `bus` (as it went out: JSON round-tripped, so later changes to the
 * publisher's objects do not show), in publishing order, into the returned array. For tests that check what a service
 * asked or answered on the bus.
 */
export function recordPublished(bus: EventBus): EventEnvelope[] {
  const passed: EventEnvelope[] = [];
  const publish = bus.publish.bind(bus);
  bus.publish = async (events: OutgoingEvent[], options?: PublishOptions) => {
    for (const e of events) passed.push(JSON.parse(JSON.stringify(e)) as EventEnvelope);
    return publish(events, options);
  };
  return passed;
}
