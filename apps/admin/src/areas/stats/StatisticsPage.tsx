import InsightsRoundedIcon from '@mui/icons-material/InsightsRounded';
import { Box } from '@mui/material';
import { useTranslate } from 'react-admin';
import { PageHeading } from '../../ui/PageHeading';
import { StatsDashboard } from './StatsDashboard';

/** /statistics: the full messaging dashboard (cards, traffic and cost over time, top destinations, streams). */
export const StatisticsPage = () => {
  const translate = useTranslate();
  return (
    <Box sx={{ maxWidth: 1400 }} data-testid="statistics-page">
      <PageHeading title={translate('statistics.title')} icon={<InsightsRoundedIcon />} />
      <StatsDashboard />
    </Box>
  );
};
