import { Typography, type SxProps, type Theme } from '@mui/material';
import { useTranslate } from 'react-admin';
import { APP_VERSION } from '../constants';

/** "© year Switchboard · Version 0.2.0", the footer of the login and account pages. */
export const Copyright = ({ sx }: { sx?: SxProps<Theme> }) => {
  const translate = useTranslate();
  return (
    <Typography variant="caption" color="text.secondary" sx={sx} data-testid="copyright">
      {translate('app.copyright', { year: new Date().getFullYear() })} · {translate('app.version', { version: APP_VERSION })}
    </Typography>
  );
};
