import { Box, Button, IconButton, MenuItem, Tooltip, type ButtonProps, type IconButtonProps, type MenuItemProps } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { useCan } from './permissions';

/**
 * Spec 2: "a tooltip for a missing permission blocks the action". Without the permission the control is disabled
 * and its tooltip says which permission is missing.
 */
export const MissingPermission = ({ permission, children, block }: { permission: string; children: ReactNode; block?: boolean }) => {
  const translate = useTranslate();
  return (
    <Tooltip title={translate('ui.permission.missing', { permission })} arrow>
      <Box component="span" sx={{ display: block ? 'block' : 'inline-flex' }} data-testid="missing-permission">
        {children}
      </Box>
    </Tooltip>
  );
};

export const GatedButton = ({ permission, children, ...props }: ButtonProps & { permission: string }) => {
  const can = useCan();
  if (can(permission)) return <Button {...props}>{children}</Button>;
  return (
    <MissingPermission permission={permission}>
      <Button {...props} disabled>
        {children}
      </Button>
    </MissingPermission>
  );
};

/** An icon button with a tooltip naming the action, or the missing permission. */
export const GatedIconButton = ({ permission, title, children, ...props }: IconButtonProps & { permission: string; title: string }) => {
  const can = useCan();
  if (can(permission)) {
    // the span keeps the tooltip working on a disabled button (a stream that cannot send)
    return (
      <Tooltip title={title}>
        <Box component="span" sx={{ display: 'inline-flex' }}>
          <IconButton size="small" aria-label={title} {...props}>
            {children}
          </IconButton>
        </Box>
      </Tooltip>
    );
  }
  return (
    <MissingPermission permission={permission}>
      <IconButton size="small" aria-label={title} {...props} disabled>
        {children}
      </IconButton>
    </MissingPermission>
  );
};

export const GatedMenuItem = ({ permission, children, ...props }: MenuItemProps & { permission: string }) => {
  const can = useCan();
  if (can(permission)) return <MenuItem {...props}>{children}</MenuItem>;
  return (
    <MissingPermission permission={permission} block>
      <MenuItem {...props} disabled>
        {children}
      </MenuItem>
    </MissingPermission>
  );
};
