/**
 * The root of a console page. `contain: inline-size` keeps a wide table (long Russian headers, many columns) from
 * widening the shell's content area: the page takes the width it is given and the table scrolls inside it.
 */
export const pageRoot = (maxWidth: number) => ({ maxWidth, contain: 'inline-size', minWidth: 0 }) as const;
