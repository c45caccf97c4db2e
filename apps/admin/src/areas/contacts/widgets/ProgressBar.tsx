import { Box, Typography } from '@mui/material';
import { PROGRESS_HEIGHTS, PROGRESS_WIDTH } from '../constants';

export type ProgressBarType = 'default' | 'sent' | 'clicked' | 'optedOut';

const COLORS: Record<ProgressBarType, string> = {
  default: '#4f46e5',
  sent: '#0ea5e9',
  clicked: '#16a34a',
  optedOut: '#d97706',
};

export interface ProgressBarProps {
  /** Percent 0..100 for a single bar; a count of `total` for a multi bar. */
  value: number;
  /** A multi bar: the label reads "{progress} / {total}". */
  total?: number;
  size?: keyof typeof PROGRESS_HEIGHTS;
  width?: number | string;
  type?: ProgressBarType;
  /** Hide the text next to the bar. */
  hideLabel?: boolean;
  testId?: string;
}

/**
 * The progress bar of spec 2: 120x8 px by default (sizes s=4, m=8, l=16 px high); a single bar reads "{progress}%",
 * a multi bar "{progress} / {total}".
 */
export const ProgressBar = ({ value, total, size = 'm', width = PROGRESS_WIDTH, type = 'default', hideLabel, testId }: ProgressBarProps) => {
  const multi = total !== undefined;
  const fraction = multi ? (total > 0 ? value / total : 0) : value / 100;
  const pct = Math.max(0, Math.min(1, Number.isFinite(fraction) ? fraction : 0));
  const height = PROGRESS_HEIGHTS[size];
  const label = multi ? `${value} / ${total}` : `${Math.round(pct * 100)}%`;
  return (
    <Box sx={{ display: 'inline-flex', alignItems: 'center', gap: 1 }} data-testid={testId} data-progress={Math.round(pct * 100)}>
      <Box
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(pct * 100)}
        sx={{ width, height, borderRadius: height, bgcolor: '#e4e7ec', overflow: 'hidden', flexShrink: 0 }}
      >
        <Box sx={{ width: `${pct * 100}%`, height: '100%', borderRadius: height, bgcolor: COLORS[type], transition: 'width 400ms ease' }} />
      </Box>
      {!hideLabel && (
        <Typography component="span" variant="body2" sx={{ fontWeight: 600, fontVariantNumeric: 'tabular-nums', color: 'text.secondary', minWidth: 36 }}>
          {label}
        </Typography>
      )}
    </Box>
  );
};
