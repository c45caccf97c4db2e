import { cloneElement, type ReactElement } from 'react';
import { Admin, Authenticated, CustomRoutes, Notification, type ResourceProps } from 'react-admin';
import { createBrowserRouter, Navigate, Route, RouterProvider } from 'react-router-dom';
import { areas } from './areas';
import { APP_TITLE, NOTIFICATION_MS } from './constants';
import { BlockedAccessPage } from './pages/BlockedAccessPage';
import { ForgotPasswordPage } from './pages/ForgotPasswordPage';
import { HomePage } from './pages/home/HomePage';
import { LoginPage } from './pages/login/LoginPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SelectAccountPage } from './pages/select-account/SelectAccountPage';
import { authProvider } from './providers/auth-provider';
import { dataProvider } from './providers/data-provider';
import { i18nProvider } from './providers/i18n-provider';
import { AppLayout } from './ui/AppLayout';
import { RenderErrorBoundary } from './ui/RenderError';
import { theme } from './ui/theme';

/** Notifications and toasts stay 4500 ms (spec 9). */
const AppNotification = () => <Notification autoHideDuration={NOTIFICATION_MS} />;

/** "/" of the shell: an authenticated user lands on /home (spec 2). */
const GoHome = () => <Navigate to="/home" replace />;

/**
 * A data-provider resource without pages of its own (contact_lists, import_lists, ...) still owns its path in
 * react-admin, where it drew a blank page: typed as an address (the API's name, /contact_lists) it shows the 404 page.
 */
const withNotFound = (resource: ReactElement) =>
  (resource.props as ResourceProps).list ? resource : cloneElement(resource, undefined, <Route path="*" element={<NotFoundPage />} />);

const Console = () => (
  <Admin
    title={APP_TITLE}
    disableTelemetry
    requireAuth
    authProvider={authProvider}
    dataProvider={dataProvider}
    i18nProvider={i18nProvider}
    theme={theme}
    layout={AppLayout}
    loginPage={LoginPage}
    dashboard={GoHome}
    catchAll={NotFoundPage}
    notification={AppNotification}
  >
    {areas.flatMap((a) => a.resources ?? []).map(withNotFound)}
    <CustomRoutes noLayout>
      {areas.flatMap((a) => a.publicRoutes ?? [])}
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route
        path="/select-account"
        element={
          <Authenticated>
            <SelectAccountPage />
          </Authenticated>
        }
      />
      <Route
        path="/blocked-access"
        element={
          <Authenticated>
            <BlockedAccessPage />
          </Authenticated>
        }
      />
    </CustomRoutes>
    <CustomRoutes>
      <Route path="/home" element={<HomePage />} />
      {areas.flatMap((a) => a.routes ?? [])}
    </CustomRoutes>
  </Admin>
);

/**
 * Real paths (/login, /select-account, ...) rather than react-admin's default hash router; the server answers
 * index.html for them. A data router, so that react-admin can block navigation on unsaved forms. Without
 * transitions: react-admin's logout-on-mount re-renders urgently while the redirect to /login waits in a
 * transition, which starved the redirect for seconds.
 */
const router = createBrowserRouter([{ path: '*', element: <Console /> }]);

export const App = () => (
  <RenderErrorBoundary>
    <RouterProvider router={router} useTransitions={false} />
  </RenderErrorBoundary>
);
