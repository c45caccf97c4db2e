import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import { Button, IconButton, Tooltip } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { COPIED_TOAST_MS } from '../constants';

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch (_e) {
    // clipboard API unavailable (plain http, permissions): the selection trick still works in every browser
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    document.execCommand('copy');
    document.body.removeChild(area);
  }
}

/** Spec 2: the copy action shows the toast copyIcon.copied for 2500 ms. */
export const CopyButton = ({ value, label, testId = 'copy-button' }: { value: string; label?: string; testId?: string }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const copy = async () => {
    await copyText(value);
    notify('team.copyIcon.copied', { type: 'success', autoHideDuration: COPIED_TOAST_MS });
  };
  if (label) {
    return (
      <Button variant="contained" startIcon={<ContentCopyRoundedIcon />} onClick={() => void copy()} data-testid={testId}>
        {label}
      </Button>
    );
  }
  return (
    <Tooltip title={translate('team.copyIcon.copy')}>
      <IconButton size="small" onClick={() => void copy()} data-testid={testId} aria-label={translate('team.copyIcon.copy')}>
        <ContentCopyRoundedIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
};
