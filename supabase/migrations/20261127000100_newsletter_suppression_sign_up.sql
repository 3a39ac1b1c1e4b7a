-- Suppression (previous migration) in the visitors' functions, and a reused confirm link told apart (issue 41):
-- a suppressed reader who signs up again is a duplicate and gets no mail, no confirmation goes to a suppressed
-- address, the expiry never removes a suppressed row (the row is what keeps the address from being mailed again),
-- and the hash of a used confirm token stays with the confirmed reader, so the confirm page can say "already".

-- A suppressed pending reader is never removed by the expiry: the row is what keeps them from being mailed again.
create or replace function newsletter_private.expire_pending()
returns void
language sql
security definer
set search_path = ''
as $$
  delete from public.newsletter_subscribers
  where state = 'pending' and suppressed_reason is null
    and coalesce(confirm_requested_at, created_at) <= now() - interval '7 days';
$$;

-- As in the confirmation migration, but a suppressed reader who signs up again is told what any duplicate is told,
-- and is never mailed ('duplicate', never 'resend').
create or replace function public.newsletter_sign_up(address text, page text, wording_version text, wording text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  found_state text;
  found_reason text;
  requested timestamptz;
begin
  if not public.newsletter_confirmation_required() then
    raise exception 'newsletter confirmation is not configured (no confirm_signing_key)';
  end if;
  perform newsletter_private.expire_pending();
  select s.state, s.suppressed_reason, coalesce(s.confirm_requested_at, s.created_at)
    into found_state, found_reason, requested
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  if found then
    if found_reason is null and found_state = 'pending' and requested <= now() - interval '24 hours' then
      update public.newsletter_subscribers s set confirm_requested_at = now() where lower(s.email) = lower(address);
      return 'resend';
    end if;
    return 'duplicate';
  end if;
  insert into public.newsletter_consent_wordings (version, wording) values (wording_version, wording)
    on conflict (version) do nothing;
  insert into public.newsletter_subscribers (email, state, consent_page, consent_version, confirm_requested_at)
    values (address, 'pending', left(page, 200), wording_version, now());
  return 'subscribed';
exception when unique_violation then
  return 'duplicate';
end
$$;

-- As in the confirmation migration, but a suppressed reader is 'gone' for the mail: no confirmation goes out.
create or replace function public.newsletter_issue_confirm_token(
  address text, token_hash text, issued_at bigint, signature text
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  signing_key text;
  found_state text;
  found_reason text;
begin
  select value into signing_key from newsletter_private.settings where name = 'confirm_signing_key';
  if signing_key is null
    or abs(extract(epoch from now()) * 1000 - issued_at) > 600000
    or signature is distinct from encode(
      extensions.hmac(address || E'\n' || token_hash || E'\n' || issued_at::text, signing_key, 'sha256'), 'hex')
  then
    return 'refused';
  end if;
  perform newsletter_private.expire_pending();
  select s.state, s.suppressed_reason into found_state, found_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address);
  if not found or found_reason is not null then return 'gone'; end if;
  if found_state <> 'pending' then return 'confirmed'; end if;
  update public.newsletter_subscribers s set confirm_token_hash = token_hash, confirm_token_at = now()
    where lower(s.email) = lower(address);
  return 'issued';
end
$$;

-- Confirms the pending reader whose mailed token this is (at most 7 days old): 'confirmed'; 'already' when it is the
-- token a reader on the list confirmed with (a reused link: the hash stays with them); else 'unknown'.
create or replace function public.newsletter_confirm_reader(token text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  token_hash text := encode(sha256(convert_to(token, 'UTF8')), 'hex');
begin
  update public.newsletter_subscribers s
    set state = 'confirmed', confirmed_at = now()
    where s.confirm_token_hash = token_hash and s.state = 'pending' and s.suppressed_reason is null
      and s.confirm_token_at > now() - interval '7 days';
  if found then return 'confirmed'; end if;
  if exists (
    select 1 from public.newsletter_subscribers s where s.confirm_token_hash = token_hash and s.state = 'confirmed'
  ) then
    return 'already';
  end if;
  return 'unknown';
end
$$;

-- The earlier boolean function, for a server not yet updated: it keeps the hash too.
create or replace function public.newsletter_confirm(token text)
returns boolean
language sql
security definer
set search_path = ''
as $$
  select public.newsletter_confirm_reader(token) = 'confirmed';
$$;

revoke all on function public.newsletter_confirm_reader(text) from public, anon, authenticated;
grant execute on function public.newsletter_confirm_reader(text) to anon;
