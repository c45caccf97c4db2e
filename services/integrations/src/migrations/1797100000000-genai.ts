import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Generative AI (docs/decisions/0041-generative-ai.md): the accounts' AI switches as the accounts service publishes
 * them (a read model), each account's providers with their keys sealed (never in the clear, never in an answer), and
 * the tokens used per account, provider and day.
 */
export class IntegrationsGenAi1797100000000 implements MigrationInterface {
  name = 'IntegrationsGenAi1797100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE integrations.genai_account (
        account_id bigint PRIMARY KEY,
        allow_generative_ai boolean NOT NULL DEFAULT false,
        allow_spintax_ai boolean NOT NULL DEFAULT false,
        -- genSettings.default_generative_service of the accounts service's snapshot
        gen_default_service text,
        -- the account's own choice in its AI settings (wins over genSettings'); never touched by a snapshot
        chosen_default_service text CHECK (chosen_default_service IN ('openai', 'gemini', 'ollama')),
        status text NOT NULL DEFAULT 'active',
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE integrations.genai_provider (
        account_id bigint NOT NULL,
        service text NOT NULL CHECK (service IN ('openai', 'gemini', 'ollama')),
        -- AES-256-GCM under INTEGRATIONS_SECRET, bound to the account and service
        key_sealed text,
        base_url text,
        model text,
        verified_at timestamptz,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (account_id, service)
      )`);
    await q.query(`
      CREATE TABLE integrations.genai_usage (
        account_id bigint NOT NULL,
        day date NOT NULL,
        service text NOT NULL,
        requests integer NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, day, service)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of ['genai_usage', 'genai_provider', 'genai_account']) await q.query(`DROP TABLE IF EXISTS integrations.${t}`);
  }
}
