/**
 * English texts of the console: the reference language and the fallback (spec 1).
 * Interpolation uses react-admin's `%{name}` syntax so that ours and react-admin's own messages read alike.
 */
const en = {
  app: {
    title: 'SMS platform',
    name: 'Switchboard',
    version: 'Version %{version}',
    copyright: '© %{year} Switchboard. All rights reserved.',
  },
  language: {
    label: 'Language',
    en: 'English',
    ru: 'Русский',
  },
  login: {
    title: 'Sign in',
    subtitle: 'Welcome back! Enter your details to continue.',
    email: 'Email',
    emailPlaceholder: 'name@company.com',
    password: 'Password',
    rememberMe: 'Remember me',
    submit: 'Sign in',
    forgotPassword: 'Forgot password?',
    or: 'or',
    sso: 'Sign in with SSO',
    recaptcha:
      'This site is protected by reCAPTCHA and the Google Privacy Policy and Terms of Service apply.',
    promo: {
      title: 'All your customer conversations in one place',
      text: 'Run SMS campaigns, manage WhatsApp and Telegram streams and answer every customer from a shared inbox.',
      campaigns: 'SMS campaigns with short links and live statistics',
      streams: 'WhatsApp, Telegram, OTP and two-way streams',
      inbox: 'A shared inbox for your whole team',
    },
  },
  pin: {
    title: 'Check your email',
    subtitle: 'Enter the %{length}-digit code we sent to',
    back: 'Use another account',
    verify: 'Verify',
    resend: 'Resend code',
    resendIn: 'Resend in %{seconds}',
    resending: 'Sending a new code…',
    checking: 'Checking the code…',
    support: 'Did not get a code? Contact support',
    digit: 'Digit %{index}',
  },
  modalPhoneVerification: {
    error: 'The code is incorrect. Please try again.',
    success: 'Code confirmed. Signing you in…',
  },
  errors: {
    client: {
      required: 'This field is required',
      email: 'Enter a valid email address',
    },
    server: {
      '1801': 'Wrong email or password',
      other: 'Something went wrong. Please try again later.',
    },
    renderError: {
      title: 'Something went wrong while displaying this page',
      text: 'Reload the page to continue. If the problem persists, contact support.',
      reload: 'Reload',
    },
  },
  selectAccount: {
    title: 'Choose an account',
    subtitle: 'You have access to several accounts. Pick the one you want to work in.',
    search: 'Search accounts',
    noResults: 'No accounts match “%{search}”',
    restricted: 'restricted account',
    noAccess: 'No Access, see more info',
    current: 'Current',
    logout: 'Log out',
  },
  accessDenied: {
    title: 'Access denied',
    text: 'This account is disabled. Contact your account manager or our support team to restore access.',
    close: 'Close',
  },
  accounts: {
    status: {
      active: 'Active',
      restrict: 'Restricted',
      disable: 'Disabled',
      delete: 'Deleted',
    },
    changingAccount: {
      error: {
        title: 'Could not switch the account',
        text: 'The account could not be opened. Please try again.',
        noPermissions: 'You have no permissions in this account.',
      },
    },
  },
  blockedAccess: {
    accessDenied: {
      title: 'Access denied',
      text: 'Your access to this account has been blocked. Contact your account manager or support@switchboard.local.',
    },
    noPermission: {
      title: 'No permissions',
      text: 'Your user has no permissions in this account yet. Ask an account administrator to assign you a role.',
    },
    chooseAccount: 'Choose another account',
    backToLogin: 'Back to login',
  },
  home: {
    welcome: 'Welcome, %{name}',
    subtitle: 'Here is what is happening in your workspace.',
    currentAccount: 'Current account',
    switchAccount: 'Switch account',
    details: 'Account details',
    currency: 'Currency',
    status: 'Status',
    shortName: 'Short name',
    email: 'Signed in as',
    superAdmin: 'Super administrator',
    noAccount: 'No account selected',
    sections: 'What you can do here',
    count: '%{smart_count} item |||| %{smart_count} items',
  },
  menu: {
    home: 'Home',
    selectAccount: 'Accounts',
  },
  sidebar: {
    close: 'Close',
  },
  notFound: {
    title: 'Not found ..(',
    text: 'The page you are looking for does not exist.',
    back: 'Go to home',
  },
  ui: {
    actions: {
      close: 'Close',
      cancel: 'Cancel',
      confirm: 'Confirm',
    },
    permission: {
      missing: 'You need the %{permission} permission for this',
    },
    table: {
      rowsPerPage: 'Rows per page',
      range: '%{from}–%{to} of %{total}',
      pages: 'Pages',
      previous: 'Previous page',
      next: 'Next page',
      noResults: 'No results',
    },
    copyIcon: {
      copy: 'Copy',
      copied: 'Copied to the clipboard',
    },
  },
  forgotPassword: {
    title: 'Reset your password',
    text: 'Password reset is not available yet. Please contact your account administrator.',
    back: 'Back to login',
  },
};

export default en;
export type Messages = typeof en;
