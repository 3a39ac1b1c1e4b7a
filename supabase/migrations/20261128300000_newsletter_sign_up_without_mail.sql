-- A sign-up while mail is off (the server has no SUPABASE_CONFIRM_SECRET, or no relay): the reader is stored confirmed
-- with the consent record every other sign-up keeps (the page whose form was used, the version of the wording, the
-- wording itself in newsletter_consent_wordings, when they were confirmed), as the embedded list stores them. The
-- visitor's plain insert of { email } stored none. The server calls this function; the plain insert stays allowed for
-- a server from before it.
--
-- The ledger's "sign-up-without-mail" door (app/newsletter/list/ledger.ts): an address the list lacks is stored
-- confirmed; a mailbox that left is stored too, and newsletter_private.ledger_guard suppresses the row on insert as it
-- does any confirmed row of a tombstoned mailbox (stored, never mailed: nobody could confirm it by mail); an address
-- on the list already, in any letter case, is 'duplicate' and changes nothing.

-- 'subscribed' (stored confirmed), 'pending' (stored pending: the database holds a signing key), or 'duplicate'.
create or replace function public.newsletter_sign_up_without_mail(
  address text, page text, wording_version text, wording text
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  -- The anon key must not skip the confirmation: once the owner stored a signing key, a visitor's plain insert is
  -- made pending by newsletter_subscribers_before_insert, and this function answers the same way. That trigger looks
  -- at current_user, which inside a security definer function is the owner, so the parity is kept here, explicitly.
  held boolean := public.newsletter_confirmation_required();
begin
  -- The address itself is checked by the table's constraint; the page must be one of the site's (a path, kept to
  -- 200 characters as newsletter_sign_up keeps it), so the row reads as the reader's own sign-up, never an import's.
  if address is null or page is null or left(page, 1) <> '/' or wording_version is null or wording is null then
    raise exception 'a sign-up needs an address, the page its form was on and the wording the reader agreed to'
      using errcode = '22023';
  end if;
  perform newsletter_private.expire_pending();
  insert into public.newsletter_subscribers (email, state, confirmed_at, consent_page, consent_version,
                                              confirm_requested_at)
    values (address, case when held then 'pending' else 'confirmed' end, case when held then null else now() end,
            left(page, 200), wording_version, case when held then now() end);
  insert into public.newsletter_consent_wordings (version, wording) values (wording_version, wording)
    on conflict (version) do nothing;
  return case when held then 'pending' else 'subscribed' end;
exception when unique_violation then
  return 'duplicate';
end
$$;

revoke all on function public.newsletter_sign_up_without_mail(text, text, text, text) from public, anon, authenticated;
grant execute on function public.newsletter_sign_up_without_mail(text, text, text, text) to anon;
