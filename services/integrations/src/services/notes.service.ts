import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import type { IntegrationNoteDto } from '@switchboard/contracts';
import { AppError, RequestContext } from '@switchboard/platform';
import { Clock } from '../clock';
import type { Connector } from '../connectors/connector';
import { VendorError } from '../connectors/http';
import { connectorOf } from '../connectors/registry';
import { rows } from '../db';
import { parse } from '../http/input';
import { INTEGRATIONS_CONNECTION } from '../integrations.options';
import { CredentialVault, type IntegrationRow } from './credentials';
import { IntegrationsService } from './integrations.service';
import { vendorProblem } from './vendor-problem';

const NoteBody = z
  .object({
    externalId: z.string().trim().min(1).max(64).optional(),
    phone: z.string().trim().regex(/^\+?[0-9 ().-]{5,32}$/, 'a phone number').optional(),
    text: z.string().trim().min(1).max(4000),
  })
  .strict()
  .refine((b) => (b.externalId === undefined) !== (b.phone === undefined), { message: 'give externalId or phone, not both', path: ['externalId'] });

/** At most this many CRM contacts share a number and get the note (the contact panel's lookup answers as many). */
const MAX_CONTACTS = 20;

/**
 * `POST /integration_keys/{key}/notes` (docs/decisions/0063, "Notes to the CRM"): a note on the CRM contact a
 * conversation is with, through the integration's ActivityCapability. The contact must be in this integration's
 * mirror (crm_contact) and the integration the caller's account's: another account's key or contact is 404.
 */
@Injectable()
export class NotesService {
  constructor(
    @InjectDataSource(INTEGRATIONS_CONNECTION) private readonly ds: DataSource,
    private readonly integrations: IntegrationsService,
    private readonly clock: Clock,
    private readonly vault: CredentialVault,
  ) {}

  /**
   * One note on one CRM contact through the integration's ActivityCapability (each vendor's documented note call).
   * Vendor failures are thrown as they are (VendorError): the route makes them answers, the close-note consumer
   * tells an outage (retried) from a refusal.
   */
  async write(row: IntegrationRow, externalId: string, text: string, occurredAt: string): Promise<void> {
    const connector = connectorOf(row.type) as Connector;
    const activity = connector.activity;
    if (!activity) throw new Error(`${connector.name} takes no notes`);
    await this.vault.withContext(connector, row, (ctx) => activity.pushNote(ctx, { externalId, text, occurredAt }));
  }

  async push(key: string, body: unknown): Promise<IntegrationNoteDto> {
    const b = parse(NoteBody, body);
    const row = await this.integrations.usable(key);
    const connector = connectorOf(row.type) as Connector;
    const activity = connector.activity;
    if (!activity) throw AppError.validation([{ propertyPath: 'key', message: `${connector.name} takes no notes` }]);
    const account = RequestContext.accountId();
    const contacts = b.externalId !== undefined
      ? await rows<{ external_id: string }>(this.ds, `SELECT external_id FROM integrations.crm_contact WHERE integration_id = $1 AND account_id = $2 AND external_id = $3`, [row.id, account, b.externalId])
      : await rows<{ external_id: string }>(
          this.ds,
          `SELECT external_id FROM integrations.crm_contact WHERE integration_id = $1 AND account_id = $2 AND regexp_replace(phone, '[^0-9]', '', 'g') = $3 ORDER BY external_id LIMIT ${MAX_CONTACTS}`,
          [row.id, account, (b.phone as string).replace(/\D/g, '')],
        );
    if (!contacts.length) throw AppError.notFound('CRM contact');
    const occurredAt = this.clock.now().toISOString();
    const done: string[] = [];
    for (const c of contacts) {
      try {
        await this.write(row, c.external_id, b.text, occurredAt);
      } catch (e) {
        if (e instanceof VendorError) throw vendorProblem(connector, e);
        throw e;
      }
      done.push(c.external_id);
    }
    return { integrationKey: row.key, externalIds: done };
  }
}
