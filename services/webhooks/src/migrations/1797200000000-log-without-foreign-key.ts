import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The request log is written for every attempt (5,000 a second at the rate). Its foreign key to the webhook
 * cost every inserted row a lookup that locks the webhook row (FOR KEY SHARE: a tuple lock, WAL-logged), the most
 * frequent statement of the delivery path. The log now keeps the webhook id without the constraint: deleting a webhook
 * deletes its log in the same transaction (WebhookService.remove), and attempts insert their rows only while the
 * webhook exists. docs/decisions/0054-webhooks-throughput-and-crash-drill.md.
 */
export class LogWithoutForeignKey1797200000000 implements MigrationInterface {
  name = 'LogWithoutForeignKey1797200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.request_log DROP CONSTRAINT IF EXISTS request_log_webhook_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhooks.request_log l WHERE NOT EXISTS (SELECT 1 FROM webhooks.webhook w WHERE w.id = l.webhook_id)`);
    await q.query(`ALTER TABLE webhooks.request_log ADD CONSTRAINT request_log_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES webhooks.webhook (id) ON DELETE CASCADE`);
  }
}
