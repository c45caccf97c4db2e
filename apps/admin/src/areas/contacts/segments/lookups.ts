import { useEffect, useState } from 'react';
import { contactsApi } from '../api';
import { DROPDOWN_PER_PAGE, ImportStatus, ImportType, StandardVariable } from '../constants';
import type { ContactList, Country, ImportList, Variable } from '../types';

/** What the filter editor and its summary pick from and name: lists, segments, imports, variables, countries. */
export interface Lookups {
  lists: ContactList[];
  segments: ContactList[];
  imports: ImportList[];
  variables: Variable[];
  countries: Country[];
}

/** Loads started this close together share one round of requests (several widgets of a page mount at once). */
const SHARE_MS = 2000;
let cache: { at: number; value: Promise<Lookups> } | null = null;

async function load(): Promise<Lookups> {
  const [lists, imports, variables, countries] = await Promise.all([
    contactsApi.allContactLists().catch(() => ({ items: [] as ContactList[], total: 0 })),
    contactsApi.importLists({ itemsPerPage: DROPDOWN_PER_PAGE, type: ImportType.Contacts, status: ImportStatus.Parsed }).catch(() => ({ items: [] as ImportList[], total: 0 })),
    contactsApi.variables().catch(() => ({ items: [] as Variable[], total: 0 })),
    contactsApi.countries().catch(() => ({ items: [] as Country[], total: 0 })),
  ]);
  return {
    lists: lists.items.filter((l) => l.type !== 'segment'),
    segments: lists.items.filter((l) => l.type === 'segment'),
    imports: imports.items,
    // short URL and opt-out link are filled when sending: nothing to filter on
    variables: variables.items.filter((v) => v.id !== StandardVariable.shorturl && v.id !== StandardVariable.optout),
    countries: countries.items,
  };
}

/** The lookups as they are now (each failing part comes back empty rather than failing the rest). */
export function loadLookups(): Promise<Lookups> {
  if (!cache || Date.now() - cache.at > SHARE_MS) cache = { at: Date.now(), value: load() };
  return cache.value;
}

/** The lookups, loaded when the component mounts: lists, imports and fields change as the user works. */
export function useLookups(): Lookups | null {
  const [value, setValue] = useState<Lookups | null>(null);
  useEffect(() => {
    let live = true;
    void loadLookups().then((v) => live && setValue(v));
    return () => {
      live = false;
    };
  }, []);
  return value;
}
