import { GenAiAccountsConsumer, GenAiSpacesConsumer } from './accounts.consumer';
import { GenAiService } from './genai.service';

export { GENAI_CONTROLLERS } from './genai.controller';
export { GENAI_OPTIONS, resolveGenAiOptions, type GenAiModuleOptions, type ResolvedGenAiOptions } from './genai.options';
export { GenAiAccountsConsumer, GenAiSpacesConsumer, GENAI_ACCOUNTS_GROUP, GENAI_SPACES_GROUP } from './accounts.consumer';
export { GenAiService } from './genai.service';

/** The genai module's providers, registered by IntegrationsModule beside its own (one schema, one connection). */
export const GENAI_SERVICES_LIST = [GenAiService, GenAiAccountsConsumer, GenAiSpacesConsumer];
