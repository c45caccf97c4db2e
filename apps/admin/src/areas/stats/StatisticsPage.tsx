import { Box, Typography } from '@mui/material';
import { Title, useTranslate } from 'react-admin';
import { StatsDashboard } from './StatsDashboard';

/** /statistics: the full messaging dashboard (cards, traffic and cost over time, top destinations, streams). */
export const StatisticsPage = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ maxWidth: 1400, mt: 1 }} data-testid="statistics-page">
      <Title title={translate('statistics.title')} />
      <Typography variant="h4" component="h1" gutterBottom>
        {translate('statistics.title')}
      </Typography>
      <StatsDashboard />
    </Box>
  );
};
