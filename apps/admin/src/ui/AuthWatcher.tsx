import { useEffect } from 'react';
import { useCheckAuth, useLogout } from 'react-admin';
import { AUTH_CHECK_MS } from '../constants';
import { onUnauthorized } from '../providers/http';

/**
 * Spec 4: authentication is checked every second (a token close to expiry is refreshed by the authProvider; no token
 * or a failed refresh logs out), and a 401 on any call logs out to /login.
 */
export const AuthWatcher = () => {
  const checkAuth = useCheckAuth();
  const logout = useLogout();

  useEffect(() => {
    const timer = setInterval(() => {
      checkAuth({}, true, '/login').catch(() => undefined);
    }, AUTH_CHECK_MS);
    return () => clearInterval(timer);
  }, [checkAuth]);

  useEffect(() => onUnauthorized(() => void logout({}, '/login')), [logout]);

  return null;
};
