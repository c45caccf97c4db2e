import { randomUUID } from 'node:crypto';
import {
  ALL_PERMISSIONS,
  ContactListReadyV1,
  CustomerCreatedV1,
  SenderChangedV1,
  StreamCreatedV1,
  StreamEventChangedV1,
  MaliciousKeywordsChangedV1,
  
} from '@switchboard/contracts';
import { createEnvelope, InMemoryEventBus } from '@switchboard/platform';
import { createTestApp, serviceHarness, type ServiceHarness } from '@switchboard/platform/testing';
import { CampaignsModule, type CampaignsModuleOptions } from '../src';

export type { Answer } from '@switchboard/platform/testing';

export interface CampaignsTestApp extends ServiceHarness {
  token: (account: string, perms?: readonly string[], superAdmin?: boolean) => string;
}

export async function startCampaigns(options: CampaignsModuleOptions = {}): Promise<CampaignsTestApp> {
  const bus = new InMemoryEventBus();
  // the runner's loop off: these tests drive the API's status machine (the runner's own tests run it)
  const t = await createTestApp(() => ({ imports: [CampaignsModule.register({ schedulerIntervalMs: 0, ...options, runner: { intervalMs: 0, ...options.runner } })], bus }));
  return { ...(await serviceHarness(t, bus)), token: (account, perms = ALL_PERMISSIONS, superAdmin = false) => t.token({ sub: `user-${account}`, acc: account, perms: [...perms], sa: superAdmin }) };
}

export const customer = (accountId: string, customSettings: Record<string, unknown> = {}, genSettings: Record<string, unknown> = {}) =>
  createEnvelope(
    CustomerCreatedV1,
    { accountId, name: `Account ${accountId}`, shortName: null, status: 'active', active: 1, currency: 'EUR', tps: 10, dailyLimit: null, customSettings, genSettings, createdAt: new Date().toISOString() },
    { accountId, source: 'accounts' },
  );

export const stream = (accountId: string, streamId: string, name = `Stream ${streamId}`, streamType = 1) =>
  createEnvelope(
    StreamCreatedV1,
    { streamId, accountId, streamUid: randomUUID(), name, streamType, status: 0, staticServiceType: null, sender: null, enableSending: true, isDefault: false, tps: 0, updatedAt: new Date().toISOString() },
    { accountId, source: 'streams' },
  );

export const sender = (accountId: string, senderId: string, value = `Acme${senderId}`) =>
  createEnvelope(SenderChangedV1, { senderId, accountId, name: value, value, type: 'outbound-only', country: null, approved: 1, declinedReason: null }, { accountId, source: 'streams' });

export const streamEvent = (accountId: string, streamEventId: string, streamId: string, name = 'order_shipped') =>
  createEnvelope(StreamEventChangedV1, { streamEventId, accountId, streamId, name, text: 'Your order {{1}} shipped', eventKey: name, active: true }, { accountId, source: 'streams' });

export const keywords = (words: string[]) =>
  createEnvelope(MaliciousKeywordsChangedV1, { keywords: words.map((word, i) => ({ id: String(i + 1), word, type: 1 })) }, { accountId: null, source: 'streams' });

export const listReady = (accountId: string, contactListId: string, numOfContacts = 10, type: 'list' | 'segment' = 'list') =>
  createEnvelope(
    ContactListReadyV1,
    { accountId, contactListId, type, name: `List ${contactListId}`, numOfContacts, importListId: null, readyAt: new Date().toISOString() },
    { accountId, source: 'contacts' },
  );
