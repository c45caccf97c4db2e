import { Box, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Title } from 'react-admin';

/** The top of a console page: an icon tile, the title (also put in the app bar) and subtitle, actions on the right. */
export const PageHeading = ({ title, subtitle, icon, actions, above }: { title: string; subtitle?: ReactNode; icon?: ReactNode; actions?: ReactNode; above?: ReactNode }) => (
  <Box sx={{ mb: 3 }}>
    {above}
    <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: 2 }}>
      <Title title={title} />
      {icon && (
        <Box sx={{ width: 44, height: 44, borderRadius: '12px', display: 'grid', placeItems: 'center', bgcolor: '#eef2ff', color: 'primary.main', flexShrink: 0 }}>
          {icon}
        </Box>
      )}
      <Box sx={{ flex: 1, minWidth: 220 }}>
        <Typography variant="h5" component="h1" sx={{ lineHeight: 1.25 }} data-testid="page-title">
          {title}
        </Typography>
        {subtitle && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 0.25 }} component="div">
            {subtitle}
          </Typography>
        )}
      </Box>
      {actions && <Box sx={{ display: 'flex', gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>{actions}</Box>}
    </Box>
  </Box>
);
