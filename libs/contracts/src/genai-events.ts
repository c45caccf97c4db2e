import { z } from 'zod';
import { defineEvent, Topics } from './events';

/**
 * Who may use the AI assistant in which of an account's spaces (spec 6, update_permissions per space; decision 0050):
 * the inbox's snapshot of every space of the account, its members (the agents of its teams) and the members whose
 * `INBOX_AI_ASSISTANT` the space takes away. Published by the inbox whenever spaces, team members or space permissions
 * change; the integrations service keeps the latest per account and checks the AI routes against it.
 */
export const GenAiSpaceAccess = z.object({
  accountId: z.string().min(1),
  spaces: z.array(
    z.object({
      spaceId: z.string().regex(/^\d+$/),
      members: z.array(z.string()),
      aiRefused: z.array(z.string()),
    }),
  ),
});
export type GenAiSpaceAccess = z.infer<typeof GenAiSpaceAccess>;

export const InboxSpaceAccessChangedV1 = defineEvent({
  type: 'inbox.space_access.changed',
  version: 1,
  topic: Topics.Inbox,
  key: (d) => d.accountId,
  schema: GenAiSpaceAccess,
});
