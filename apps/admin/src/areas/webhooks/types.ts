/** The webhooks API's shapes, from their one source (libs/contracts/src/webhooks.ts), under the console's names. */
import type { WebhookDto, WebhookRequestLogDto, WebhookTestResultDto, WebhookTriggerValue } from '@switchboard/contracts/src/webhooks';
import { WEBHOOK_TRIGGERS } from '@switchboard/contracts/src/webhooks';

export type { WebhookParams } from '@switchboard/contracts/src/webhooks';
export type Trigger = WebhookTriggerValue;
export const TRIGGERS: readonly Trigger[] = WEBHOOK_TRIGGERS;
export type Webhook = WebhookDto;
export type SentRequest = WebhookRequestLogDto['request'];
export type ReceivedResponse = NonNullable<WebhookRequestLogDto['response']>;
export type TestResult = WebhookTestResultDto;
export type RequestLogEntry = WebhookRequestLogDto;

export interface ListResult<T> {
  items: T[];
  total: number;
}
