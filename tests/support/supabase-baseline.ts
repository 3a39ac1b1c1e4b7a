/**
 * What a fresh Supabase project has before any migration runs, for the migration tests on PGlite: the two API roles,
 * usage on public, and the default privileges that hand every new table, sequence and function in public to them.
 * Without the defaults a test could not tell whether a migration's revoke actually does anything.
 */
export const SUPABASE_BASELINE = `
  create role anon nologin noinherit;
  create role authenticated nologin noinherit;
  grant usage on schema public to anon, authenticated;
  alter default privileges in schema public grant all on tables to anon, authenticated;
  alter default privileges in schema public grant all on sequences to anon, authenticated;
  alter default privileges in schema public grant all on functions to anon, authenticated;
`;
