import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Reached limit (state 6) follows the usage counter in the database too, so the redirect role's minting (which
 * moves `total_usages`) and the console (which moves `messages_limit`) agree without sharing code: a configured
 * domain at or over its limit is 6, a 6 back under it is 1. The same rule as `limitAdjusted` (domain-rows.ts).
 */
export class DomainLimitState1796600000001 implements MigrationInterface {
  name = 'DomainLimitState1796600000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION links.domain_limit_state() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.state = 1 AND NEW.messages_limit IS NOT NULL AND NEW.total_usages >= NEW.messages_limit THEN
          NEW.state := 6;
        ELSIF NEW.state = 6 AND (NEW.messages_limit IS NULL OR NEW.total_usages < NEW.messages_limit) THEN
          NEW.state := 1;
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`CREATE TRIGGER domain_limit_state BEFORE INSERT OR UPDATE ON links.domain FOR EACH ROW EXECUTE FUNCTION links.domain_limit_state()`);
    // the per-account cap of domains in one pool (campaignSettings.max_domains_per_pool); null: the service default
    await q.query(`ALTER TABLE links.account_settings ADD COLUMN max_domains_per_pool integer CHECK (max_domains_per_pool IS NULL OR max_domains_per_pool > 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE links.account_settings DROP COLUMN max_domains_per_pool`);
    await q.query(`DROP TRIGGER domain_limit_state ON links.domain`);
    await q.query(`DROP FUNCTION links.domain_limit_state()`);
  }
}
