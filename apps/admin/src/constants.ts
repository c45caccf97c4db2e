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

/** Spec 9: the page sizes of the table footer's dropdown, and its page range and margin. */
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const PAGE_RANGE = 4;
export const PAGE_MARGIN = 1;

/** Spec 2: the copy action's toast stays 2500 ms. */
export const COPIED_TOAST_MS = 2500;

/** Spec 2: modal widths (xs 360, s 480 default, m 640, l 800). */
export const MODAL_WIDTHS = { xs: 360, s: 480, m: 640, l: 800 } as const;
export type ModalSize = keyof typeof MODAL_WIDTHS;
