import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The room log keeps the payloads of one statement's events for several rooms in ONE `room_payload` row
 * (docs/decisions/0128): the JSON array text the statement was sent, `[p1,p2,…]`, and each event's rows point to it by
 * `payload_id` and their element's number, `payload_ix` (1-based). An incoming batch's payloads (about 1.2 KB each,
 * one per message) were a row each, each written to the WAL whole: the largest WAL share of the wire path (1.3 KB a
 * message). One row per batch is over PostgreSQL's 2 KB threshold as soon as the batch holds two messages, so it is
 * stored compressed (the payloads of a batch repeat their keys and most values): a few hundred bytes a message, and
 * one row and one key instead of one per message. Rows written before keep a payload each (`payload_ix` null).
 */
export class RoomPayloadPerStatement1798300000128 implements MigrationInterface {
  name = 'RoomPayloadPerStatement1798300000128';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE inbox.room_event ADD COLUMN payload_ix int`);
    await q.query(`ALTER TABLE inbox.room_event ADD CONSTRAINT room_event_payload_ix CHECK (payload_ix IS NULL OR payload_id IS NOT NULL)`);
  }

  async down(q: QueryRunner): Promise<void> {
    // back to a payload row each: the events of a statement's row get their element as a row of its own
    await q.query(`
      WITH one AS MATERIALIZED (
        SELECT DISTINCT ON (payload_id, payload_ix) e.payload_id, e.payload_ix, nextval('inbox.room_payload_id_seq') AS id
          FROM inbox.room_event e WHERE e.payload_ix IS NOT NULL ORDER BY payload_id, payload_ix
      ), ins AS (
        INSERT INTO inbox.room_payload (id, payload, at)
        SELECT one.id, p.payload -> (one.payload_ix - 1), p.at FROM one JOIN inbox.room_payload p ON p.id = one.payload_id
      )
      UPDATE inbox.room_event e SET payload_id = one.id, payload_ix = NULL FROM one WHERE one.payload_id = e.payload_id AND one.payload_ix = e.payload_ix`);
    await q.query(`DELETE FROM inbox.room_payload p WHERE NOT EXISTS (SELECT 1 FROM inbox.room_event e WHERE e.payload_id = p.id)`);
    await q.query(`ALTER TABLE inbox.room_event DROP CONSTRAINT room_event_payload_ix`);
    await q.query(`ALTER TABLE inbox.room_event DROP COLUMN payload_ix`);
  }
}
