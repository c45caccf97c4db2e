import type { Catalogue } from '../../types';

const en: Catalogue = {
  webhooks: {
    menu: { webhooks: 'Webhooks', requests: 'Webhook requests' },
    title: 'Webhooks',
    subtitle: 'Signed HTTP calls to your server for messages, statuses, costs and clicks',
    create: 'Add webhook',
    empty: 'No webhooks yet',
    emptyText: 'Add a webhook to receive events at your URL.',
    saved: 'Webhook saved',
    active: 'Active',
    inactive: 'Inactive',
    snippets: 'Receive and verify a delivery',
    fields: { name: 'Name', url: 'URL', httpMethod: 'Method', trigger: 'Trigger', streams: 'Only these streams (ids)', headers: 'Headers', active: 'Status' },
    triggers: { incoming_message: 'Incoming message', short_url_clicks: 'Short URL clicks', message_status_change: 'Message status change', edr_info: 'EDR info' },
    params: { send_bulk: 'Send in bulk', include_message_text: 'Include message text', include_contact_details: 'Include contact details', include_lead_id: 'Include lead id' },
    actions: { test: 'Test', edit: 'Edit', delete: 'Delete' },
    form: {
      createTitle: 'Add webhook',
      editTitle: 'Edit webhook',
      create: 'Add',
      save: 'Save',
      streamsHelp: 'Comma-separated stream ids; empty means every stream',
      headersHelp: 'One "name: value" per line',
    },
    secret: { title: 'Signing secret', once: 'Copy the secret now: it is shown only once. Use it to verify the webhook-signature header.' },
    test: { pending: 'Testing…', pendingText: 'Sending a test event to your URL', success: 'Success', timeout: 'Timeout', failed: 'Failed' },
    preview: { toggle: 'Show details', headers: 'Headers', payload: 'Payload', response: 'Response', noResponse: 'No response' },
    confirmDelete: { title: 'Delete webhook', text: 'Delete the webhook "%{name}"? Its queued deliveries are dropped.' },
    log: {
      title: 'Webhook requests',
      subtitle: 'Every delivery attempt with its request and response',
      sentAt: 'Sent',
      webhook: 'Webhook',
      request: 'Request',
      status: 'Status',
      response: 'Response',
      attempt: 'Attempt',
      duration: 'Time',
      test: 'test',
      all: 'All',
    },
  },
};

export default en;
