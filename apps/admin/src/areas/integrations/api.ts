import { apiFetch } from '../../providers/http';
import type {
  IntegrationConfigDto,
  IntegrationConfigInput,
  IntegrationConfigResponse,
  IntegrationInstallRequest,
  IntegrationInstallResponse,
  IntegrationKeyDto,
  IntegrationOptionDto,
  IntegrationTypeValue,
  SyncProgressDto,
} from '@switchboard/contracts/src/integrations';
import type { SsoAccessRequest } from '@switchboard/contracts/src/sso';

export type { SsoAccessRequest };
export type { IntegrationConfigDto, IntegrationConfigInput, IntegrationInstallResponse, IntegrationKeyDto, IntegrationOptionDto, IntegrationTypeValue, SyncProgressDto };

/** Permission strings of spec 6 these screens check (libs/contracts/src/permissions.ts). */
export const P = { IntegrationView: 'INTEGRATION_VIEW', TenantOwner: 'TENANT_OWNER', UserInviteView: 'USER_INVITE_VIEW', UserInviteEdit: 'USER_INVITE_EDIT' } as const;

/** Spec 9: integrations 500 per page. */
export const INTEGRATIONS_PER_PAGE = 500;

/**
 * The types the completion route handles: every integration type of the contracts (checked by the compiler against
 * `IntegrationTypeValue`, so a type added there must be added here). Anything else goes to /404.
 */
export const VENDOR_NAMES: Record<IntegrationTypeValue, string> = {
  hubspot: 'HubSpot',
  pipedrive: 'Pipedrive',
  zoho: 'Zoho CRM',
  shopify: 'Shopify',
  intercom: 'Intercom',
  monday: 'Monday',
  dialer: 'Dialer',
  zohoinbox: 'Zoho Inbox',
};
export const isHandledType = (t: string | undefined): t is IntegrationTypeValue => !!t && Object.prototype.hasOwnProperty.call(VENDOR_NAMES, t);

/** The calls of spec 7: /integration_keys (manual_install, sync), /integration_config/{key} (GET, POST, start). */
export const integrationsApi = {
  list: () => apiFetch<{ items: IntegrationKeyDto[]; total: number }>(`/integration_keys?page=1&itemsPerPage=${INTEGRATIONS_PER_PAGE}`),
  options: () => apiFetch<IntegrationOptionDto[]>('/integration_keys/manual_install'),
  install: (body: IntegrationInstallRequest) => apiFetch<IntegrationInstallResponse>('/integration_keys/manual_install', { method: 'POST', body }),
  remove: (key: string) => apiFetch<void>(`/integration_keys/${encodeURIComponent(key)}`, { method: 'DELETE' }),
  /** Answers whatever the server sent: the screen checks that status and data are there (spec 8). */
  config: (key: string) => apiFetch<Partial<IntegrationConfigResponse> | null>(`/integration_config/${encodeURIComponent(key)}`),
  saveConfig: (key: string, body: IntegrationConfigInput) => apiFetch<IntegrationConfigResponse>(`/integration_config/${encodeURIComponent(key)}`, { method: 'POST', body }),
  start: (key: string) => apiFetch<IntegrationConfigResponse>(`/integration_config/${encodeURIComponent(key)}/start`),
};

/** Zoho Inbox sign-on access requests of the account (auth, decision 0042): list, approve, reject. */
export const accessRequestsApi = {
  list: () => apiFetch<SsoAccessRequest[]>('/sso/access_requests'),
  approve: (id: number) => apiFetch<SsoAccessRequest>(`/sso/access_requests/${id}/approve`, { method: 'POST' }),
  reject: (id: number) => apiFetch<SsoAccessRequest>(`/sso/access_requests/${id}/reject`, { method: 'POST' }),
};
