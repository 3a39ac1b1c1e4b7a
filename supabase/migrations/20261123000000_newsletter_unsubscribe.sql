-- Every subscriber gets an unguessable unsubscribe token, and one database function removes the subscriber holding
-- a token. The anon role still cannot read, update or delete rows: the function is the only way out of the list,
-- and it is safe even if the anon key were public, since only whoever holds a token (the subscriber, from their
-- e-mail) can name the row it removes.

-- The default gives rows that already exist a token too (a volatile default is evaluated for each row).
alter table public.newsletter_subscribers
  add column if not exists unsubscribe_token uuid not null default gen_random_uuid();

create unique index if not exists newsletter_subscribers_unsubscribe_token_key
  on public.newsletter_subscribers (unsubscribe_token);

-- Visitors still insert the address only (the grant from the first migration is on the email column alone): the
-- token always comes from the default, so nobody can choose a token for an address they do not own.

create or replace function public.unsubscribe_newsletter(token uuid)
returns void
language sql
security definer
-- An empty search path: every name below is schema-qualified, so nobody can slip in a table of their own.
set search_path = ''
as $$
  delete from public.newsletter_subscribers where unsubscribe_token = token;
$$;

comment on function public.unsubscribe_newsletter(uuid) is
  'Removes the newsletter subscriber holding this unsubscribe token, if any; answers nothing either way.';

revoke all on function public.unsubscribe_newsletter(uuid) from public, anon, authenticated;
grant execute on function public.unsubscribe_newsletter(uuid) to anon;
