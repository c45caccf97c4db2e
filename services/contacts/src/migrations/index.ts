import { ContactsInit1795400000000 } from './1795400000000-init';

/** In order; a new migration is appended, never edited once released. */
export const CONTACTS_MIGRATIONS = [ContactsInit1795400000000];
