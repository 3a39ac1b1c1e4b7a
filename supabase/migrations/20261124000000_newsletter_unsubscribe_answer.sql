-- The unsubscribe function says whether it removed a subscriber. The app counts only tokens that belong to nobody
-- against its rate limit, so that one-click unsubscribes a mail provider sends for many readers from one shared
-- address are all honoured. Telling a caller whether a token exists gives nothing away: tokens are 122 random bits.

-- A function's result type cannot be replaced in place.
drop function if exists public.unsubscribe_newsletter(uuid);

create function public.unsubscribe_newsletter(token uuid)
returns boolean
language sql
security definer
-- An empty search path: every name below is schema-qualified, so nobody can slip in a table of their own.
set search_path = ''
as $$
  with removed as (
    delete from public.newsletter_subscribers where unsubscribe_token = token returning 1
  )
  select exists (select 1 from removed);
$$;

comment on function public.unsubscribe_newsletter(uuid) is
  'Removes the newsletter subscriber holding this unsubscribe token, if any; answers whether it removed one.';

revoke all on function public.unsubscribe_newsletter(uuid) from public, anon, authenticated;
grant execute on function public.unsubscribe_newsletter(uuid) to anon;
