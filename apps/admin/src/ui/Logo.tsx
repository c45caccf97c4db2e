import ForumRoundedIcon from '@mui/icons-material/ForumRounded';
import { Box, Typography } from '@mui/material';

/** The product mark: a rounded square with the chat icon, and the name next to it unless compact. */
export const Logo = ({ compact = false, inverted = false }: { compact?: boolean; inverted?: boolean }) => (
  <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.25 }}>
    <Box
      sx={{
        width: 34,
        height: 34,
        borderRadius: '9px',
        display: 'grid',
        placeItems: 'center',
        bgcolor: inverted ? 'rgba(255,255,255,.16)' : 'primary.main',
        color: '#fff',
        flexShrink: 0,
      }}
    >
      <ForumRoundedIcon sx={{ fontSize: 20 }} />
    </Box>
    {!compact && (
      <Typography sx={{ fontWeight: 700, fontSize: 18, letterSpacing: '-0.01em', color: inverted ? '#fff' : 'text.primary' }}>
        Switchboard
      </Typography>
    )}
  </Box>
);
