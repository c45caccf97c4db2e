import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { ErrorCode, type DialerContactDto, type DialerConversationResponse, type IntegrationContactDto } from '@switchboard/contracts';
import { AppError, RequestContext } from '@switchboard/platform';
import { Clock } from '../clock';
import { connectorOf } from '../connectors/registry';
import { rows } from '../db';
import { parse } from '../http/input';
import { INTEGRATIONS_CONNECTION, INTEGRATIONS_OPTIONS, type ResolvedIntegrationsOptions } from '../integrations.options';
import { tokenHash } from './integrations.service';

const DialerBody = z
  .object({
    phone: z.string().trim().regex(/^\+?[0-9 ().-]{5,32}$/, 'a phone number'),
    name: z.string().trim().min(1).max(255).optional(),
  })
  .strict();

const digits = (p: string) => p.replace(/\D/g, '');

/**
 * The dialer opens a conversation in one click, and the inbox shows the CRM contact beside a conversation
 * (docs/decisions/0040-integrations.md).
 */
@Injectable()
export class DialerService {
  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    @Inject(INTEGRATIONS_OPTIONS) private readonly options: ResolvedIntegrationsOptions,
    private readonly clock: Clock,
  ) {}

  /**
   * The dialer (authenticated by its integration token, never a user session) names the caller; the answer is the
   * console URL that opens the new conversation. 0x15 for a missing, unknown or removed token.
   */
  async conversation(token: string | undefined, body: unknown): Promise<DialerConversationResponse> {
    if (!token) throw AppError.unauthorized('the dialer sends its integration token in X-Integration-Token', ErrorCode.InvalidIntegrationToken);
    const [integration] = await rows<{ id: string; account_id: string; key: string }>(this.ds, `SELECT id, account_id, key FROM integrations.integration WHERE token_hash = $1 AND type = 'dialer' AND status = 'active'`, [tokenHash(token)]);
    if (!integration) throw AppError.unauthorized('invalid integration token', ErrorCode.InvalidIntegrationToken);
    const b = parse(DialerBody, body);
    const contactKey = randomUUID();
    await this.ds.query(`INSERT INTO integrations.dialer_contact (contact_key, account_id, integration_id, phone, name, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [contactKey, integration.account_id, integration.id, b.phone, b.name ?? null, this.clock.now()]);
    return { url: `${this.options.appUrl}/inbox?action=newDialerConv&contact_key=${contactKey}`, contactKey };
  }

  /** The caller a contact key names, for the inbox's new conversation: the caller's account only. */
  async contact(contactKey: string): Promise<DialerContactDto> {
    if (!/^[0-9a-f-]{36}$/i.test(contactKey)) throw AppError.notFound('dialer contact');
    const [r] = await rows<{ contact_key: string; key: string; phone: string; name: string | null; created_at: Date }>(
      this.ds,
      `SELECT d.contact_key, i.key, d.phone, d.name, d.created_at FROM integrations.dialer_contact d JOIN integrations.integration i ON i.id = d.integration_id
        WHERE d.contact_key = $1 AND d.account_id = $2`,
      [contactKey, RequestContext.accountId()],
    );
    if (!r) throw AppError.notFound('dialer contact');
    return { contactKey: r.contact_key, integrationKey: r.key, phone: r.phone, name: r.name, createdAt: new Date(r.created_at).toISOString() };
  }

  /** The CRM contacts with this phone number across the account's integrations (the inbox's contact panel). */
  async lookup(phone: unknown): Promise<IntegrationContactDto[]> {
    const d = typeof phone === 'string' ? digits(phone) : '';
    if (d.length < 5 || d.length > 20) throw AppError.validation([{ propertyPath: 'phone', message: 'a phone number' }]);
    const found = await rows<{ key: string; type: string; domain: string | null; external_id: string; first_name: string | null; last_name: string | null; email: string | null; phone: string; fields: IntegrationContactDto['fields'] }>(
      this.ds,
      `SELECT i.key, i.type, i.domain, c.external_id, c.first_name, c.last_name, c.email, c.phone, c.fields
         FROM integrations.crm_contact c JOIN integrations.integration i ON i.id = c.integration_id
        WHERE c.account_id = $1 AND i.status <> 'disconnected' AND regexp_replace(c.phone, '[^0-9]', '', 'g') = $2
        ORDER BY i.id, c.external_id LIMIT 20`,
      [RequestContext.accountId(), d],
    );
    return found.map((r) => ({
      integrationKey: r.key,
      type: r.type as IntegrationContactDto['type'],
      externalId: r.external_id,
      name: [r.first_name, r.last_name].filter(Boolean).join(' ') || null,
      email: r.email,
      phone: r.phone,
      url: connectorOf(r.type)?.contactUrl?.({ domain: r.domain, credentials: {} }, r.external_id) ?? null,
      fields: r.fields,
    }));
  }
}
