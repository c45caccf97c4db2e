import { Box, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';
import { variantCount, type WordLists } from '../rules';

/**
 * The live count of a variant: characters and SMS parts of its longest expansion (spintax at its longest, variables
 * at their longest values), GSM-7 160/153 or UCS-2 70/67 as the shared encoder counts them.
 */
export const VariantCounter = ({ text, maxLengths, words, testId = 'variant-counter' }: { text: string; maxLengths: Record<string, number>; words?: WordLists; testId?: string }) => {
  const translate = useTranslate();
  const a = variantCount(text, maxLengths, words);
  const unicode = a.encoding === 'UCS2';
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25, flexWrap: 'wrap' }} data-testid={testId} data-encoding={a.encoding} data-segments={a.segments} data-units={a.units}>
      <Typography variant="caption" color="text.secondary" data-testid="variant-chars">
        {translate('campaigns.message.characters', { smart_count: a.units })}
      </Typography>
      <Typography variant="caption" sx={{ fontWeight: 700, color: a.segments > 1 ? 'warning.dark' : 'text.primary' }} data-testid="variant-segments">
        {translate('campaigns.message.segments', { smart_count: a.segments })}
      </Typography>
      <Typography variant="caption" color="text.secondary">
        {translate('campaigns.message.remaining', { smart_count: a.remaining, per: a.perSegment })}
      </Typography>
      <Box component="span" sx={{ fontSize: 11, fontWeight: 700, px: 0.9, py: 0.2, borderRadius: '6px', bgcolor: unicode ? '#fffaeb' : '#f2f4f7', color: unicode ? '#b54708' : '#475467' }} data-testid="variant-encoding">
        {unicode ? 'UCS-2' : 'GSM-7'}
      </Box>
      {a.error !== undefined && (
        <Typography variant="caption" color="error" data-testid="spintax-error">
          {translate('campaigns.errors.client.spintax', { position: a.error + 1 })}
        </Typography>
      )}
    </Box>
  );
};
