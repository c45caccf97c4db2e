import { Box } from '@mui/material';
import type { ReactNode } from 'react';

export type Tone = 'success' | 'warning' | 'danger' | 'info' | 'neutral' | 'primary' | 'secondary';

export const TONES: Record<Tone, { bg: string; fg: string; dot: string }> = {
  success: { bg: '#ecfdf3', fg: '#067647', dot: '#17b26a' },
  warning: { bg: '#fffaeb', fg: '#b54708', dot: '#f79009' },
  danger: { bg: '#fef3f2', fg: '#b42318', dot: '#f04438' },
  info: { bg: '#eff8ff', fg: '#175cd3', dot: '#2e90fa' },
  primary: { bg: '#eef2ff', fg: '#3730a3', dot: '#4f46e5' },
  secondary: { bg: '#f0f9ff', fg: '#026aa2', dot: '#0ba5ec' },
  neutral: { bg: '#f2f4f7', fg: '#344054', dot: '#98a2b3' },
};

/** A soft pill with a status dot; `pulse` animates the dot (a stream that is sending, a message on its way). */
export const StatusChip = ({ tone, children, testId, pulse }: { tone: Tone; children: ReactNode; testId?: string; pulse?: boolean }) => {
  const t = TONES[tone];
  return (
    <Box
      component="span"
      data-testid={testId}
      sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.75, px: 1.1, py: 0.3, borderRadius: 99, bgcolor: t.bg, color: t.fg, fontSize: 12.5, fontWeight: 600, whiteSpace: 'nowrap', lineHeight: 1.5 }}
    >
      <Box
        component="span"
        sx={{
          width: 6,
          height: 6,
          borderRadius: '50%',
          bgcolor: t.dot,
          ...(pulse ? { boxShadow: `0 0 0 0 ${t.dot}`, animation: 'sbPulse 1.6s infinite', '@keyframes sbPulse': { '0%': { boxShadow: `0 0 0 0 ${t.dot}88` }, '70%': { boxShadow: `0 0 0 6px ${t.dot}00` }, '100%': { boxShadow: `0 0 0 0 ${t.dot}00` } } } : {}),
        }}
      />
      {children}
    </Box>
  );
};
