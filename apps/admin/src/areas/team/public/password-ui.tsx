import ArrowBackRoundedIcon from '@mui/icons-material/ArrowBackRounded';
import { Box, Link, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { Link as RouterLink } from 'react-router-dom';

export const IconTile = ({ children, tone = 'primary.main' }: { children: ReactNode; tone?: string }) => (
  <Box sx={{ width: 52, height: 52, borderRadius: '14px', display: 'grid', placeItems: 'center', bgcolor: tone, color: '#fff', mb: 2.5 }}>{children}</Box>
);

export const BackToLogin = () => {
  const translate = useTranslate();
  return (
    <Typography variant="body2" sx={{ mt: 3, textAlign: 'center' }}>
      <Link component={RouterLink} to="/login" underline="hover" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5 }} data-testid="back-to-login">
        <ArrowBackRoundedIcon sx={{ fontSize: 16 }} />
        {translate('team.forgotPassword.back')}
      </Link>
    </Typography>
  );
};

