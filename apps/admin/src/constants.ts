/** Business constants of spec section 9 that the console shell uses. */
export const APP_VERSION = '0.2.0';
export const APP_TITLE = 'SMS platform';

/** Auth check period (spec 9: "Auth check 1 s"). */
export const AUTH_CHECK_MS = 1000;
/** A token this close to its expiry is refreshed before it lapses, so a request never leaves with a dead token. */
export const TOKEN_REFRESH_MARGIN_MS = 5000;
/** Pause between a successful PIN and the redirect (spec 9: "PIN delay 1500 ms"). */
export const PIN_DELAY_MS = 1500;
export const PIN_LENGTH = 6;
/** Resend countdown of the verification step (spec 9). */
export const RESEND_COUNTDOWN_S = 30;
/** Notifications and toasts (spec 9). */
export const NOTIFICATION_MS = 4500;

export const MENU_WIDTH_OPEN = 230;
export const MENU_WIDTH_CLOSED = 70;
export const RIGHT_SIDEBAR_WIDTH = 600;

export const DEFAULT_PAGE_SIZE = 25;

/** The captcha is off in embedded and dev mode; the server accepts this placeholder there (spec 7). */
export const CAPTCHA_PLACEHOLDER = 'dev-placeholder';

export const SUPPORT_URL = 'mailto:support@switchboard.local';
export const SSO_LOGIN_URL = '/sso/login';
