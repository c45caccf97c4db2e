import BlockRoundedIcon from '@mui/icons-material/BlockRounded';
import ContactPhoneOutlinedIcon from '@mui/icons-material/ContactPhoneOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import ListAltRoundedIcon from '@mui/icons-material/ListAltRounded';
import TuneRoundedIcon from '@mui/icons-material/TuneRounded';
import { Resource } from 'react-admin';
import { Route } from 'react-router-dom';
import type { AdminArea } from '../types';
import { P, PATHS } from './constants';
import en from './i18n/en';
import ru from './i18n/ru';
import { lazyPage } from '../../ui/lazyPage';

const ContactListsPage = lazyPage(() => import('./lists/ContactListsPage').then((m) => m.ContactListsPage));
const ImportWizardPage = lazyPage(() => import('./imports/ImportWizardPage').then((m) => m.ImportWizardPage));
const SegmentBuilderPage = lazyPage(() => import('./segments/SegmentBuilderPage').then((m) => m.SegmentBuilderPage));
const ContactsPage = lazyPage(() => import('./contacts/ContactsPage').then((m) => m.ContactsPage));
const VariablesPage = lazyPage(() => import('./variables/VariablesPage').then((m) => m.VariablesPage));
const BlacklistPage = lazyPage(() => import('./blacklist/BlacklistPage').then((m) => m.BlacklistPage));
const ExportsPage = lazyPage(() => import('./exports/ExportsPage').then((m) => m.ExportsPage));

/**
 * Contacts (issue 4): contact lists and segments with their side panel, the import wizard, the segment builder,
 * contacts, contact fields (variables), blocked destinations and exports. The choices the spec leaves open are in
 * README.md in this folder.
 */
export const contactsArea: AdminArea = {
  key: 'contacts',
  messages: { en, ru },
  // Named resources (no pages of their own) so react-admin's cache and hooks know them.
  resources: [
    <Resource key="contact_lists" name="contact_lists" recordRepresentation="name" />,
    <Resource key="contacts" name="contacts" recordRepresentation="phone" />,
    <Resource key="variables" name="variables" recordRepresentation="UIname" />,
    <Resource key="black_lists" name="black_lists" recordRepresentation="phone" />,
    <Resource key="import_lists" name="import_lists" recordRepresentation="name" />,
    <Resource key="tasks" name="tasks" />,
  ],
  routes: [
    <Route key="contact-lists" path={PATHS.lists} element={<ContactListsPage />} />,
    <Route key="contact-import" path={PATHS.import} element={<ImportWizardPage />} />,
    <Route key="segment-new" path={PATHS.newSegment} element={<SegmentBuilderPage />} />,
    <Route key="segment-edit" path="/contact-lists/segments/:id" element={<SegmentBuilderPage />} />,
    <Route key="contacts" path={PATHS.contacts} element={<ContactsPage />} />,
    <Route key="contact-fields" path={PATHS.variables} element={<VariablesPage />} />,
    <Route key="blocked-destinations" path={PATHS.blacklist} element={<BlacklistPage />} />,
    <Route key="exports" path={PATHS.exports} element={<ExportsPage />} />,
  ],
  menu: [
    { to: PATHS.lists, label: 'contacts.menu.lists', icon: <ListAltRoundedIcon />, permissions: [P.ListView], testId: 'menu-contact-lists', count: '/contact_lists?itemsPerPage=1' },
    { to: PATHS.contacts, label: 'contacts.menu.contacts', icon: <ContactPhoneOutlinedIcon />, permissions: [P.ContactView], testId: 'menu-contacts' },
    { to: PATHS.variables, label: 'contacts.menu.variables', icon: <TuneRoundedIcon />, permissions: [P.FieldView], testId: 'menu-contact-fields' },
    { to: PATHS.blacklist, label: 'contacts.menu.blacklist', icon: <BlockRoundedIcon />, permissions: [P.BlockView], testId: 'menu-blocked-destinations' },
    { to: PATHS.exports, label: 'contacts.menu.exports', icon: <FileDownloadOutlinedIcon />, permissions: [P.ListExport], testId: 'menu-exports' },
  ],
};
