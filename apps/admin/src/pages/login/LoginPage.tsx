import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { getRememberMe, readTokens } from '../../providers/token-store';
import type { LoginChallenge } from '../../providers/types';
import { AuthLayout } from '../../ui/AuthLayout';
import { CredentialsStep, type Credentials } from './CredentialsStep';
import { PinStep } from './PinStep';

/** /login: credentials, then the PIN step (spec 2). */
export const LoginPage = () => {
  const navigate = useNavigate();
  const [credentials, setCredentials] = useState<Credentials>(() => ({ username: '', password: '', rememberMe: getRememberMe() }));
  const [challenge, setChallenge] = useState<LoginChallenge | null>(null);

  // an already signed-in user has nothing to do here
  useEffect(() => {
    if (readTokens()) navigate('/home', { replace: true });
  }, [navigate]);

  return (
    <AuthLayout>
      {challenge ? (
        <PinStep
          credentials={credentials}
          challenge={challenge}
          onBack={() => {
            setChallenge(null);
            setCredentials({ ...credentials, password: '' });
          }}
        />
      ) : (
        <CredentialsStep
          initial={credentials}
          onCodeSent={(c, ch) => {
            setCredentials(c);
            setChallenge(ch);
          }}
        />
      )}
    </AuthLayout>
  );
};
