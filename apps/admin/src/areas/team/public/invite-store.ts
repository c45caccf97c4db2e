import type { InviteCheck, InviteLink } from '../types';

/** The invite being handled, kept for the tab (registration after a reload, acceptance after signing in). */
const KEY = 'switchboard.invite';

export interface StoredInvite {
  link: InviteLink;
  check: InviteCheck;
}

export function storeInvite(invite: StoredInvite): void {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify(invite));
  } catch (_e) {
    // storage blocked: the page still has it in its navigation state
  }
}

export function readInvite(): StoredInvite | null {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    if (!raw) return null;
    const v = JSON.parse(raw) as Partial<StoredInvite>;
    return v.link && v.check ? (v as StoredInvite) : null;
  } catch (_e) {
    return null;
  }
}

export function clearInvite(): void {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch (_e) {
    // nothing stored
  }
}
