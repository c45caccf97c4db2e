import { MaliciousKeywordEntity } from './malicious-keyword.entity';
import { SenderEntity } from './sender.entity';
import { StreamEventEntity } from './stream-event.entity';
import { StreamEntity } from './stream.entity';

export { MaliciousKeywordEntity, SenderEntity, StreamEventEntity, StreamEntity };
export const STREAMS_ENTITIES = [StreamEntity, SenderEntity, StreamEventEntity, MaliciousKeywordEntity];
