import { useTranslate } from 'react-admin';
import type { Contact } from '../types';
import { StatusChip } from '../../../ui/StatusChip';

/** Whether a contact can be sent to: active, opted out, or blocked (its number is on the blacklist). */
export const ContactStatus = ({ contact }: { contact: Pick<Contact, 'optedOutAt' | 'blocked'> }) => {
  const translate = useTranslate();
  if (contact.optedOutAt) return <StatusChip tone="warning">{translate('contacts.contacts.status.optedOut')}</StatusChip>;
  if (contact.blocked) return <StatusChip tone="danger">{translate('contacts.contacts.status.blocked')}</StatusChip>;
  return <StatusChip tone="success">{translate('contacts.contacts.status.active')}</StatusChip>;
};
