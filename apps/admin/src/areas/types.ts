import type { ReactElement, ReactNode } from 'react';

/** A translation catalogue of one area: nested objects of strings, under the area's own top-level keys. */
export interface Catalogue {
  [key: string]: string | Catalogue;
}

export interface AreaMenuItem {
  to: string;
  /** A translation key. */
  label: string;
  icon: ReactNode;
  /** Shown only with every one of these permissions (super admins see everything). */
  permissions?: string[];
  /** Shown only to super administrators. */
  superAdmin?: boolean;
  testId?: string;
  /** An /api list path whose `total` the home page shows on this entry's card (only where counting is cheap). */
  count?: string;
  /** A translation key: one line on the home page card saying what the section is for. */
  hint?: string;
}

/**
 * One part of the console (team and roles, contacts, streams, ...). Each area lives in its own folder and brings its
 * translations, react-admin resources, routes and menu entries; App.tsx and the menu only iterate the registry, so
 * areas are built side by side without touching each other's files.
 */
export interface AdminArea {
  key: string;
  messages: { en: Catalogue; ru: Catalogue };
  /** `<Resource>` elements. */
  resources?: ReactElement[];
  /** `<Route>` elements inside the shell layout (authenticated). */
  routes?: ReactElement[];
  /** `<Route>` elements without the layout (registration, invite acceptance, password reset...). */
  publicRoutes?: ReactElement[];
  menu?: AreaMenuItem[];
}
