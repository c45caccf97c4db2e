export { adoptTokens, authProvider, fetchProfile, cachedProfile, requestLoginCode, switchAccount, type LoginParams } from './auth-provider';
export { dataProvider, listQuery } from './data-provider';
export { i18nProvider, LOCALES, readSavedLocale, type LocaleCode } from './i18n-provider';
export { ApiError, apiFetch, apiStream, isApiError, onUnauthorized, refreshTokens } from './http';
export * from './types';
