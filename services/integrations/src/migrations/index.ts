import { IntegrationsInit1797000000000 } from './1797000000000-init';

/** In order; a new migration is appended, never edited once released. The genai module's own migrations join this list. */
export const INTEGRATIONS_MIGRATIONS = [IntegrationsInit1797000000000];
