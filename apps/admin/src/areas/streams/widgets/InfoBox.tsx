import LightbulbOutlinedIcon from '@mui/icons-material/LightbulbOutlined';
import OpenInNewRoundedIcon from '@mui/icons-material/OpenInNewRounded';
import { Box, Link, Typography } from '@mui/material';
import type { ReactNode } from 'react';

/** Spec 2: info boxes open their link in a new tab (documentation on the streams API and SMS route types). */
export const InfoBox = ({ title, text, cta, href, icon }: { title: string; text: ReactNode; cta?: string; href?: string; icon?: ReactNode }) => (
  <Box sx={{ display: 'flex', gap: 1.5, p: 2, borderRadius: '10px', bgcolor: '#f8fafc', border: '1px solid', borderColor: 'divider' }}>
    <Box sx={{ color: 'primary.main', mt: 0.25 }}>{icon ?? <LightbulbOutlinedIcon fontSize="small" />}</Box>
    <Box sx={{ minWidth: 0 }}>
      <Typography sx={{ fontWeight: 600, fontSize: 14 }}>{title}</Typography>
      <Typography variant="body2" color="text.secondary" component="div">
        {text}
      </Typography>
      {cta && href && (
        <Link href={href} target="_blank" rel="noopener noreferrer" variant="body2" sx={{ display: 'inline-flex', alignItems: 'center', gap: 0.5, mt: 0.75, fontWeight: 600 }}>
          {cta}
          <OpenInNewRoundedIcon sx={{ fontSize: 15 }} />
        </Link>
      )}
    </Box>
  </Box>
);

/** A titled group of fields in a form. */
export const FormSection = ({ title, hint, children, action }: { title: string; hint?: ReactNode; children: ReactNode; action?: ReactNode }) => (
  <Box sx={{ '& + &': { mt: 3 } }}>
    <Box sx={{ display: 'flex', alignItems: 'center', mb: 1.5, gap: 1 }}>
      <Box sx={{ flex: 1 }}>
        <Typography sx={{ fontWeight: 700, fontSize: 14.5 }}>{title}</Typography>
        {hint && (
          <Typography variant="body2" color="text.secondary" component="div">
            {hint}
          </Typography>
        )}
      </Box>
      {action}
    </Box>
    {children}
  </Box>
);

/** A small label/value line of a details card. */
export const DetailRow = ({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) => (
  <Box sx={{ display: 'flex', gap: 2, py: 1, borderBottom: 1, borderColor: 'divider', '&:last-of-type': { borderBottom: 0 }, alignItems: 'baseline' }}>
    <Typography variant="body2" color="text.secondary" sx={{ width: 170, flexShrink: 0 }}>
      {label}
    </Typography>
    <Box sx={{ minWidth: 0, flex: 1, fontSize: 14, wordBreak: 'break-word' }} data-testid={testId}>
      {children}
    </Box>
  </Box>
);
