import { Box, Button, MenuItem, Tooltip, type ButtonProps, type MenuItemProps } from '@mui/material';
import type { ReactNode } from 'react';
import { useTranslate } from 'react-admin';
import { useCan } from './permissions';

/**
 * Spec 2: "a tooltip for a missing permission blocks the action". Without the permission the control is disabled
 * and its tooltip says which permission is missing.
 */
const MissingPermission = ({ permission, children, block }: { permission: string; children: ReactNode; block?: boolean }) => {
  const translate = useTranslate();
  return (
    <Tooltip title={translate('contacts.permission.missing', { permission })} arrow>
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
