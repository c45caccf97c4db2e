import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fewer index entries per conversation write (docs/decisions/0102). Every conversation an incoming message creates,
 * and every update that moves `last_updated` (which the keyset pages order by, so it can never be a HOT update), wrote
 * an entry into each of the table's thirteen indexes (the primary key included). Three of them repeated another:
 *
 * - `conversation_contact_phone_idx (account_id, contact_phone)`: the conversation's unique key now leads with the same
 *   two columns, `(account_id, contact_phone, stream_id)`, and serves both the upsert's conflict (ON CONFLICT names
 *   the columns, in any order) and the contact's conversations by phone.
 * - the trigram indexes of `contact_name` and `contact_phone`: one GIN over both columns (a multicolumn GIN answers a
 *   condition on either column as well as a GIN of that column alone).
 * - the array indexes of `team_ids` and `agent_ids`: one GIN over both, likewise.
 *
 * And `fillfactor = 80`: an update leaves its new row version on the same page when there is room, which is what
 * lets an update that changes no indexed column (an agent opening the conversation: `unread` 0; the first message
 * accepted: `temp` false) be HOT, and makes every same-page update log only the changed bytes.
 *
 * The room log (an incoming message's payload once, its three room rows): the payloads become `json` (the text as
 * sent, checked but not converted to jsonb: a third of the cost of jsonb's input, and replayed exactly as it went out
 * live), and `room_payload_at_idx` goes: the prune deletes a payload by key with the events that pointed to it.
 *
 * The indexes are built without CONCURRENTLY (migrations run in a transaction): writes to `inbox.conversation` wait
 * for the builds (seconds at 1,000,000 conversations).
 */
export class ConversationWriteIndexes1798000000000 implements MigrationInterface {
  name = 'ConversationWriteIndexes1798000000000';

  async up(q: QueryRunner): Promise<void> {
    const trgmOps = await trigramOps(q);
    await q.query(`ALTER TABLE inbox.conversation ADD CONSTRAINT conversation_contact_stream_key UNIQUE (account_id, contact_phone, stream_id)`);
    await q.query(`ALTER TABLE inbox.conversation DROP CONSTRAINT conversation_account_id_stream_id_contact_phone_key`);
    await q.query(`DROP INDEX inbox.conversation_contact_phone_idx`);
    await q.query(`CREATE INDEX conversation_search_trgm_idx ON inbox.conversation USING gin (contact_name ${trgmOps}, contact_phone ${trgmOps})`);
    await q.query(`DROP INDEX inbox.conversation_name_trgm_idx`);
    await q.query(`DROP INDEX inbox.conversation_phone_trgm_idx`);
    await q.query(`CREATE INDEX conversation_members_idx ON inbox.conversation USING gin (team_ids, agent_ids)`);
    await q.query(`DROP INDEX inbox.conversation_teams_idx`);
    await q.query(`DROP INDEX inbox.conversation_agents_idx`);
    await q.query(`ALTER TABLE inbox.conversation SET (fillfactor = 80)`);
    await q.query(`ALTER TABLE inbox.room_event ALTER COLUMN payload TYPE json USING payload::json`);
    await q.query(`ALTER TABLE inbox.room_payload ALTER COLUMN payload TYPE json USING payload::json`);
    await q.query(`DROP INDEX inbox.room_payload_at_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    const trgmOps = await trigramOps(q);
    await q.query(`CREATE INDEX room_payload_at_idx ON inbox.room_payload (at)`);
    await q.query(`ALTER TABLE inbox.room_payload ALTER COLUMN payload TYPE jsonb USING payload::jsonb`);
    await q.query(`ALTER TABLE inbox.room_event ALTER COLUMN payload TYPE jsonb USING payload::jsonb`);
    await q.query(`ALTER TABLE inbox.conversation RESET (fillfactor)`);
    await q.query(`CREATE INDEX conversation_agents_idx ON inbox.conversation USING gin (agent_ids)`);
    await q.query(`CREATE INDEX conversation_teams_idx ON inbox.conversation USING gin (team_ids)`);
    await q.query(`DROP INDEX inbox.conversation_members_idx`);
    await q.query(`CREATE INDEX conversation_phone_trgm_idx ON inbox.conversation USING gin (contact_phone ${trgmOps})`);
    await q.query(`CREATE INDEX conversation_name_trgm_idx ON inbox.conversation USING gin (contact_name ${trgmOps})`);
    await q.query(`DROP INDEX inbox.conversation_search_trgm_idx`);
    await q.query(`CREATE INDEX conversation_contact_phone_idx ON inbox.conversation (account_id, contact_phone)`);
    await q.query(`ALTER TABLE inbox.conversation ADD CONSTRAINT conversation_account_id_stream_id_contact_phone_key UNIQUE (account_id, stream_id, contact_phone)`);
    await q.query(`ALTER TABLE inbox.conversation DROP CONSTRAINT conversation_contact_stream_key`);
  }
}

/** pg_trgm's operator class, in whichever schema the extension was installed (the init migration's rule). */
async function trigramOps(q: QueryRunner): Promise<string> {
  const [{ nspname }] = (await q.query(`SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm'`)) as Array<{ nspname: string }>;
  return `"${nspname.replace(/"/g, '""')}".gin_trgm_ops`;
}
