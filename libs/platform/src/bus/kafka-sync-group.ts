/**
 * A group member whose SyncGroup the coordinator refuses with INVALID_REQUEST rejoins instead of crashing.
 *
 * librdkafka's mock cluster (the Kafka of every test, the drills and CI) completes a group's sync as soon as the
 * leader's SyncGroup brings the assignments of every member, and answers a follower's SyncGroup that arrives after
 * that with INVALID_REQUEST (error 42, "malformed"): it no longer keeps the follower's assignment. A Kafka broker keeps
 * the assignments and answers a late follower with its own. The leader refreshes metadata before it assigns, so a
 * follower is usually first; on a loaded machine a starved follower process is not (issue 17: a second dispatch
 * replica's consumers "crashed on SyncGroup with KafkaJSProtocolError ... malformed 5 to 8 times").
 *
 * kafkajs treats INVALID_REQUEST as fatal: the consumer crashed, the bus started a new consumer after a growing delay,
 * and the crashed member stayed in the group (a crashed consumer does not send LeaveGroup) until its session ended,
 * holding partitions it no longer fetched: two more rebalances per crash. Reported as REBALANCE_IN_PROGRESS instead,
 * kafkajs' join loop rejoins at once with the same member id and gets its assignment in the next generation.
 */
export interface KafkaBroker {
  syncGroup(request: { groupId: string; generationId: number; memberId: string; groupAssignment: unknown[] }): Promise<unknown>;
}

interface ProtocolErrors {
  createErrorFromCode(code: number): Error;
}

const INVALID_REQUEST = 'INVALID_REQUEST';
const REBALANCE_IN_PROGRESS_CODE = 27;
const PATCHED = Symbol.for('switchboard.kafkajs.broker.syncGroupRejoin');

/** kafkajs' Broker class (not exported by its index; its module is the class). */
export function kafkaBrokerClass(): new (options: Record<string, unknown>) => KafkaBroker {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, no typings
  return require('kafkajs/src/broker') as new (options: Record<string, unknown>) => KafkaBroker;
}

/** Idempotent: patches kafkajs' Broker once per process. */
export function patchKafkaSyncGroupRejoin(): void {
  const proto = kafkaBrokerClass().prototype as KafkaBroker & { [PATCHED]?: boolean };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, no typings
  const errors = require('kafkajs/src/protocol/error') as ProtocolErrors;
  const syncGroup = proto.syncGroup;
  proto.syncGroup = async function (this: KafkaBroker, request) {
    try {
      return await syncGroup.call(this, request);
    } catch (e) {
      // only a follower (no assignments to hand out) can be late for a sync the leader completed
      if ((e as { type?: string }).type === INVALID_REQUEST && request.groupAssignment.length === 0) throw errors.createErrorFromCode(REBALANCE_IN_PROGRESS_CODE);
      throw e;
    }
  };
}
