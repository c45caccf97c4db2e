/** English texts of the Zoho Inbox sign-on pages (spec 2 /zoho-sso, /complete-sso, /inbox-login; spec 4). */
const en = {
  sso: {
    zoho: {
      title: 'Zoho Inbox',
      intro: 'Sign in to the Switchboard inbox with your Zoho account.',
      login: 'Log in with Zoho',
      waiting: 'Finish signing in in the Zoho window ...',
      pending: 'Pending for access approval ...',
      pendingHint: 'An administrator of your Switchboard account approves Zoho Inbox sign-on for your address. Try again once they have.',
      error: 'Error occurred',
      popupBlocked: 'The browser blocked the Zoho window: allow pop-ups for this site and try again.',
      notConfigured: 'Zoho Inbox sign-on is not configured on this installation.',
      retry: 'Try again',
      success: 'Signed in. Opening the inbox ...',
    },
    complete: {
      loggingIn: 'Log in ...',
    },
    inboxLogin: {
      opening: 'Opening the inbox ...',
    },
    requests: {
      title: 'Zoho Inbox sign-on requests',
      empty: 'No Zoho user is waiting for access.',
      email: 'Zoho address',
      member: 'Member',
      status: 'Status',
      approve: 'Approve',
      reject: 'Refuse',
      statuses: { pending: 'Pending', approved: 'Approved', rejected: 'Refused' },
    },
  },
};

export default en;
