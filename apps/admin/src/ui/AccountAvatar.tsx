import { Avatar } from '@mui/material';

const PALETTE = ['#4f46e5', '#0891b2', '#059669', '#d97706', '#db2777', '#7c3aed', '#2563eb', '#dc2626'];

/** Up to two initials of an account name ("Acme Trading" -> "AT"). */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return '?';
  if (words.length === 1) return words[0].slice(0, 2).toUpperCase();
  return (words[0][0] + words[1][0]).toUpperCase();
}

function colourOf(seed: string): string {
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[h % PALETTE.length];
}

export const AccountAvatar = ({ name, size = 44, muted = false }: { name: string; size?: number; muted?: boolean }) => (
  <Avatar
    variant="rounded"
    sx={{
      width: size,
      height: size,
      fontSize: size * 0.38,
      fontWeight: 700,
      borderRadius: '10px',
      bgcolor: muted ? 'grey.300' : colourOf(name),
      color: muted ? 'grey.600' : '#fff',
    }}
  >
    {initials(name)}
  </Avatar>
);
