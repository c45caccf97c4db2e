import { IntegrationsInit1797000000000 } from './1797000000000-init';
import { IntegrationsGenAi1797100000000 } from './1797100000000-genai';
import { IntegrationsGenAiSpaceAccess1797360000000 } from './1797360000000-genai-space-access';
import { IntegrationsCrmUsers1797400000000 } from './1797400000000-crm-users';
import { IntegrationsCloseNotes1797420000000 } from './1797420000000-close-notes';

/** In order; a new migration is appended, never edited once released. The genai module's own migrations join this list. */
export const INTEGRATIONS_MIGRATIONS = [
  IntegrationsInit1797000000000,
  IntegrationsGenAi1797100000000,
  IntegrationsGenAiSpaceAccess1797360000000,
  IntegrationsCrmUsers1797400000000,
  IntegrationsCloseNotes1797420000000,
];
