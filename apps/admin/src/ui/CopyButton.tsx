import ContentCopyRoundedIcon from '@mui/icons-material/ContentCopyRounded';
import { Button, IconButton, Tooltip, type ButtonProps } from '@mui/material';
import { useNotify, useTranslate } from 'react-admin';
import { COPIED_TOAST_MS } from '../constants';

export async function copyText(text: string): Promise<void> {
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
export const CopyButton = ({ value, label, testId = 'copy-button', variant = 'contained', dark = false }: { value: string; label?: string; testId?: string; variant?: ButtonProps['variant']; dark?: boolean }) => {
  const translate = useTranslate();
  const notify = useNotify();
  const copy = async () => {
    await copyText(value);
    notify('ui.copyIcon.copied', { type: 'success', autoHideDuration: COPIED_TOAST_MS });
  };
  if (label) {
    return (
      <Button variant={variant} startIcon={<ContentCopyRoundedIcon />} onClick={() => void copy()} data-testid={testId}>
        {label}
      </Button>
    );
  }
  return (
    <Tooltip title={translate('ui.copyIcon.copy')}>
      <IconButton size="small" onClick={() => void copy()} data-testid={testId} aria-label={translate('ui.copyIcon.copy')} sx={dark ? { color: '#cbd5e1', '&:hover': { bgcolor: 'rgba(255,255,255,.08)' } } : undefined}>
        <ContentCopyRoundedIcon fontSize="small" />
      </IconButton>
    </Tooltip>
  );
};
