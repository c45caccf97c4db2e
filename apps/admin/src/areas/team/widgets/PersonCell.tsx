import WorkspacePremiumRoundedIcon from '@mui/icons-material/WorkspacePremiumRounded';
import { Avatar, Box, Tooltip, Typography } from '@mui/material';
import { useTranslate } from 'react-admin';

const PALETTE = ['#4f46e5', '#0891b2', '#059669', '#d97706', '#db2777', '#7c3aed', '#2563eb', '#dc2626'];
function colourOf(seed: string): string {
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

export function personInitials(first: string, last: string, email: string): string {
  const a = (first.trim()[0] ?? '') + (last.trim()[0] ?? '');
  return (a || email.slice(0, 2)).toUpperCase();
}

/** A person: round avatar with initials, the name and the email; a crown marks the global admin (spec 2). */
export const PersonCell = ({ firstName, lastName, email, crown, muted }: { firstName: string; lastName: string; email: string; crown?: boolean; muted?: boolean }) => {
  const translate = useTranslate();
  const name = [firstName, lastName].filter(Boolean).join(' ');
  return (
    <Box sx={{ display: 'flex', alignItems: 'center', gap: 1.5, minWidth: 0 }}>
      <Avatar sx={{ width: 36, height: 36, fontSize: 14, fontWeight: 700, bgcolor: muted ? 'grey.300' : colourOf(email), color: muted ? 'grey.600' : '#fff' }}>
        {personInitials(firstName, lastName, email)}
      </Avatar>
      <Box sx={{ minWidth: 0 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 0.5 }}>
          <Typography sx={{ fontWeight: 600, fontSize: 14.5 }} noWrap>
            {name || email}
          </Typography>
          {crown && (
            <Tooltip title={translate('team.members.globalAdmin')}>
              <WorkspacePremiumRoundedIcon sx={{ fontSize: 17, color: '#f59e0b' }} data-testid="crown" />
            </Tooltip>
          )}
        </Box>
        {name && (
          <Typography variant="body2" color="text.secondary" noWrap>
            {email}
          </Typography>
        )}
      </Box>
    </Box>
  );
};
