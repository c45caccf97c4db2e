import { ContactsInit1795400000000 } from './1795400000000-init';
import { OutboxPacked1795600000000 } from './1795600000000-outbox-packed';
import { BlackListOptOut1796100000000 } from './1796100000000-black-list-opt-out';
import { DeadLetters1796300000000 } from './1796300000000-dead-letters';
import { IntegrationLists1797000000100 } from './1797000000100-integration-lists';
import { AudienceAttempts1798500000140 } from './1798500000140-audience-attempts';

/** In order; a new migration is appended, never edited once released. */
export const CONTACTS_MIGRATIONS = [ContactsInit1795400000000, OutboxPacked1795600000000, BlackListOptOut1796100000000, DeadLetters1796300000000, IntegrationLists1797000000100, AudienceAttempts1798500000140];
