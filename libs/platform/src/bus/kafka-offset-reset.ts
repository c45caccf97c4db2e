/**
 * A consumer group's offset found out of range of the log is reported with its offsets, never reset silently.
 *
 * When a group's next offset is no longer in the partition's log (the broker deleted the records before the group read
 * them: retention, a slow or long-stopped consumer; or the offset is past the log's end), the broker answers the fetch
 * with OFFSET_OUT_OF_RANGE and kafkajs resets the group to its default offset (the oldest retained record here,
 * `fromBeginning`), logging only "Offset out of range, resetting to default offset" with the topic and partition. The
 * records between the group's offset and the log's start are skipped for good: events a service never handled.
 *
 * The patch looks up, before kafkajs resets, the offset the group was at and the log's first and next offsets, and logs
 * them through the consumer's logger under {@link OFFSET_RESET_LOG}. `KafkaEventBus` picks that entry out of kafkajs'
 * log (its `logCreator`), counts it in `switchboard_kafka_offset_resets_total{group,topic}` and logs an error with the
 * group, topic, partition, the offsets and how many records were skipped (docs/decisions/0085).
 */
export const OFFSET_RESET_LOG = 'switchboard: committed offset out of range of the log';

/** What the patch logs under {@link OFFSET_RESET_LOG} (strings as kafkajs keeps offsets; null when not known). */
export interface OffsetResetEntry {
  groupId: string;
  topic: string;
  partition: number;
  /** The offset the group was about to fetch from. */
  offset: string | null;
  /** The partition's oldest retained offset and the offset its next record will get, as the broker answered. */
  logStart: string | null;
  logEnd: string | null;
}

interface KafkaCluster {
  fetchTopicsOffset(topics: Array<{ topic: string; partitions: Array<{ partition: number }>; fromBeginning: boolean }>): Promise<Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>>;
}

interface ConsumerGroupInternals {
  groupId: string;
  cluster: KafkaCluster;
  logger: { error(message: string, extra: object): void };
  preferredReadReplicasPerTopicPartition?: Record<string, Record<number, number | undefined> | undefined>;
  offsetManager?: { resolvedOffsets?: Record<string, Record<number, string | undefined> | undefined>; committedOffsets?: () => Record<string, Record<number, string | undefined> | undefined> };
  recoverFromOffsetOutOfRange(e: { topic: string; partition: number }): Promise<void>;
}

const PATCHED = Symbol.for('switchboard.kafkajs.consumerGroup.offsetResetReport');
/** The broker's answer for the log's range is waited for this long, then the reset goes on without it. */
const RANGE_TIMEOUT_MS = 5000;

async function logRange(cluster: KafkaCluster, topic: string, partition: number): Promise<{ logStart: string | null; logEnd: string | null }> {
  const at = async (fromBeginning: boolean) => {
    const [answer] = await cluster.fetchTopicsOffset([{ topic, partitions: [{ partition }], fromBeginning }]);
    return answer?.partitions.find((p) => p.partition === partition)?.offset ?? null;
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ logStart: null; logEnd: null }>((resolve) => {
    timer = setTimeout(() => resolve({ logStart: null, logEnd: null }), RANGE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.all([at(true), at(false)]).then(([logStart, logEnd]) => ({ logStart, logEnd })), timeout]);
  } catch {
    return { logStart: null, logEnd: null };
  } finally {
    clearTimeout(timer);
  }
}

/** Idempotent: patches kafkajs' ConsumerGroup once per process. */
export function patchKafkaOffsetResetReport(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- kafkajs' internal module, no typings
  const proto = (require('kafkajs/src/consumer/consumerGroup') as { prototype: ConsumerGroupInternals & { [PATCHED]?: boolean } }).prototype;
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const recover = proto.recoverFromOffsetOutOfRange;
  proto.recoverFromOffsetOutOfRange = async function (this: ConsumerGroupInternals, e) {
    // kafkajs first retries a follower's out-of-range on the leader (no reset); only a reset is reported
    const replicas = this.preferredReadReplicasPerTopicPartition?.[e.topic];
    if (!(replicas && typeof replicas[e.partition] === 'number')) {
      const offsets = this.offsetManager;
      const offset = offsets?.resolvedOffsets?.[e.topic]?.[e.partition] ?? offsets?.committedOffsets?.()[e.topic]?.[e.partition] ?? null;
      const range = await logRange(this.cluster, e.topic, e.partition);
      const entry: OffsetResetEntry = { groupId: this.groupId, topic: e.topic, partition: e.partition, offset: offset ?? null, ...range };
      this.logger.error(OFFSET_RESET_LOG, entry);
    }
    return recover.call(this, e);
  };
}

/** How many records a reset to the log's start skipped: those from the group's offset up to the log's start. */
export function skippedByReset(entry: Pick<OffsetResetEntry, 'offset' | 'logStart'>): number | null {
  if (entry.offset === null || entry.logStart === null || BigInt(entry.offset) < 0n) return null;
  const skipped = BigInt(entry.logStart) - BigInt(entry.offset);
  return skipped > 0n ? Number(skipped) : 0;
}
