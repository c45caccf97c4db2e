import KeyRoundedIcon from '@mui/icons-material/KeyRounded';
import { Alert, Box, Button, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { AppModal } from '../../../ui/modal/AppModal';
import { CopyButton } from '../../../ui/CopyButton';

/**
 * The token display modal of spec 2: the whole key, shown once (the server keeps only its hash), with a copy button.
 * Closing it is the last time the key can be seen.
 */
export const TokenDisplayDialog = ({ token, name, onClose }: { token: string | null; name: string; onClose: () => void }) => {
  const translate = useTranslate();
  return (
    <AppModal
      open={!!token}
      onClose={onClose}
      size="m"
      title={translate('team.apiKeys.token.title')}
      testId="token-dialog"
      dismissible={false}
      hideCloseWhenLocked
      actions={
        <>
          <CopyButton value={token ?? ''} label={translate('team.apiKeys.token.copy')} testId="token-copy" />
          <Button variant="outlined" onClick={onClose} data-testid="token-done">
            {translate('team.apiKeys.token.done')}
          </Button>
        </>
      }
    >
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, mb: 2 }}>
        <Box sx={{ width: 40, height: 40, borderRadius: '10px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main' }}>
          <KeyRoundedIcon />
        </Box>
        <Box>
          <Typography sx={{ fontWeight: 700 }}>{name}</Typography>
          <Typography variant="body2" color="text.secondary">
            {translate('team.apiKeys.token.subtitle')}
          </Typography>
        </Box>
      </Box>
      <Box
        data-testid="token-value"
        sx={{
          fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
          fontSize: 14,
          p: 2,
          borderRadius: '8px',
          bgcolor: '#0f172a',
          color: '#e2e8f0',
          wordBreak: 'break-all',
          userSelect: 'all',
          mb: 2,
        }}
      >
        {token}
      </Box>
      <Alert severity="warning">{translate('team.apiKeys.token.once')}</Alert>
    </AppModal>
  );
};
