import { ForgotPasswordForm } from '../areas/team/public/ForgotPasswordForm';
import { AuthLayout } from '../ui/AuthLayout';

/** /forgot-password (spec 2): the password reset request; the form lives in the team area with the reset page. */
export const ForgotPasswordPage = () => (
  <AuthLayout>
    <ForgotPasswordForm />
  </AuthLayout>
);
