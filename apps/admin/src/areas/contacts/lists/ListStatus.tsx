import { useTranslate } from 'react-admin';
import { ImportStatus, ListStatus } from '../constants';
import { ProgressBar } from '../widgets/ProgressBar';
import { StatusChip, type Tone } from '../../../ui/StatusChip';

/** Spec 1: a contact list shows either a ready status or a progress bar while it is processed. */
export const ListStatusCell = ({ status, progress, testId }: { status: number; progress: number; testId?: string }) => {
  const translate = useTranslate();
  if (status === ListStatus.Ready) {
    return (
      <StatusChip tone="success" testId={testId}>
        {translate('contacts.lists.status.ready')}
      </StatusChip>
    );
  }
  return <ProgressBar value={status === ListStatus.Initializing ? 0 : progress} testId={testId ? `${testId}-progress` : undefined} />;
};

const IMPORT_TONES: Record<string, Tone> = {
  [ImportStatus.Error]: 'danger',
  [ImportStatus.Uploaded]: 'neutral',
  [ImportStatus.Mapped]: 'info',
  [ImportStatus.Processing]: 'warning',
  [ImportStatus.Parsed]: 'success',
};

/** Spec 4: import status error, uploaded, mapped, processing, parsed. */
export const ImportStatusChip = ({ status, testId }: { status: string; testId?: string }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={IMPORT_TONES[status] ?? 'neutral'} testId={testId}>
      {translate(`contacts.imports.status.${status}`, { _: status })}
    </StatusChip>
  );
};

export const TypeChip = ({ type }: { type: string }) => {
  const translate = useTranslate();
  return (
    <StatusChip tone={type === 'segment' ? 'primary' : type === 'integration' ? 'info' : 'neutral'}>
      {translate(`contacts.lists.type.${type}`, { _: type })}
    </StatusChip>
  );
};
