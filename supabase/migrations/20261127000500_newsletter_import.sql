-- Importing a list from another tool (issue 40) into the Supabase list: `npm run subscribers -- import <file>`, run
-- with the service role key given to that command alone. An imported reader is stored as the embedded store stores
-- one: confirmed (they agreed at the other tool), their consent record in consent_page (where from: the file, its
-- format, the import time, the original sign-up date), and suppressed as 'unsubscribed' when the file says they left
-- there. The row of a suppressed reader stays, so no mail of any kind reaches them, a new sign-up is a duplicate that
-- mails nothing, and a later import cannot bring them back: the sign-up, confirm and send queries of the suppression
-- migrations already leave out every reader whose suppressed_reason is set, whatever the reason.

-- A third reason: the reader left the list at the other tool.
alter table public.newsletter_subscribers
  drop constraint if exists newsletter_subscribers_suppressed_reason_check;
alter table public.newsletter_subscribers
  add constraint newsletter_subscribers_suppressed_reason_check
  check (suppressed_reason in ('bounced', 'complained', 'unsubscribed'));

-- Stores one imported reader unless the address is on the list in any letter case and any state: 'added' or
-- 'exists' (the reader already there keeps their own record untouched). One statement, so a sign-up arriving at the
-- same moment is either there first ('exists') or a duplicate after. A security definer function owned by the
-- database's owner: the trigger that makes an API role's insert pending does not apply, as an import is confirmed.
create or replace function public.newsletter_import_reader(
  address text,
  signed_up_at timestamptz,
  imported_at timestamptz,
  consent_note text,
  reason text,
  detail text
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
begin
  if imported_at is null or consent_note is null then
    raise exception 'an imported reader needs the import time and a consent note';
  end if;
  insert into public.newsletter_subscribers
    (email, created_at, state, confirmed_at, consent_page, suppressed_reason, suppressed_detail, suppressed_at)
    values (
      address,
      coalesce(signed_up_at, imported_at),
      'confirmed',
      imported_at,
      left(consent_note, 1000),
      reason,
      case when reason is null then null else left(coalesce(detail, 'said so in the import'), 1000) end,
      case when reason is null then null else imported_at end
    )
    on conflict ((lower(email))) do nothing;
  if found then return 'added'; end if;
  return 'exists';
end
$$;

-- Only the service role (the import command): the anon key, which the browser may hold, can never add a confirmed
-- reader, nor learn whether an address is on the list.
revoke all on function public.newsletter_import_reader(text, timestamptz, timestamptz, text, text, text)
  from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.newsletter_import_reader(text, timestamptz, timestamptz, text, text, text)
      to service_role;
  end if;
end
$$;
