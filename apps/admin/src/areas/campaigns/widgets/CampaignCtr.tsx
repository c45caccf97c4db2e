import { Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import type { Campaign } from '../types';
import { campaignCtr, CTR_COLORS } from './ctr';

/** The CTR cell of the campaigns list (spec 3, 5, 9 CTR indicators): coloured by the campaign's indicators; none before a message went out. */
export const CampaignCtr = ({ campaign }: { campaign: Pick<Campaign, 'stats' | 'campaignSettings'> }) => {
  const translate = useTranslate();
  const locale = translate('campaigns.locale');
  const { ctr, level } = campaignCtr(campaign);
  if (level === 'none') return <Typography variant="body2" color="text.disabled" data-testid="campaign-ctr" data-level="none">—</Typography>;
  return (
    <Typography variant="body2" sx={{ fontWeight: 700, color: CTR_COLORS[level], whiteSpace: 'nowrap', fontVariantNumeric: 'tabular-nums' }} data-testid="campaign-ctr" data-level={level} title={translate(`campaigns.settings.levelNames.${level}`)}>
      {ctr.toLocaleString(locale, { maximumFractionDigits: 2 })}%
    </Typography>
  );
};
