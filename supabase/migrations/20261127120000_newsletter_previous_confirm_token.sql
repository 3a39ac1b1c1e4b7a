-- A second confirmation mail leaves the first mail's link working (issue 39): the hash of the token mailed before the
-- latest one is kept beside it, each valid for its own 7 days, and the confirm function accepts either. Idempotent:
-- safe to run again. Applies after 20261127000100_newsletter_suppression_sign_up.sql, whose two functions it
-- redefines with only that added (a suppressed reader still gets no token and confirms nothing).

alter table public.newsletter_subscribers
  add column if not exists previous_confirm_token_hash text,
  add column if not exists previous_confirm_token_at timestamptz;

create index if not exists newsletter_subscribers_previous_confirm_token_hash
  on public.newsletter_subscribers (previous_confirm_token_hash);

-- As in 20261127000100, but the token it replaces becomes the previous one instead of being lost. The same token
-- again (the server retrying the same mail) keeps the previous one as it is.
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
  update public.newsletter_subscribers s
    set previous_confirm_token_hash = case when s.confirm_token_hash = token_hash
        then s.previous_confirm_token_hash else s.confirm_token_hash end,
      previous_confirm_token_at = case when s.confirm_token_hash = token_hash
        then s.previous_confirm_token_at else s.confirm_token_at end,
      confirm_token_hash = token_hash, confirm_token_at = now()
    where lower(s.email) = lower(address);
  return 'issued';
end
$$;

-- As in 20261127000100, with the previous mail's token accepted too: 'confirmed'; 'already' when the token (the
-- latest or the previous) is one a reader on the list confirmed with; else 'unknown'. newsletter_confirm calls this.
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
    where s.state = 'pending' and s.suppressed_reason is null
      and (
        (s.confirm_token_hash = token_hash and s.confirm_token_at > now() - interval '7 days')
        or (s.previous_confirm_token_hash = token_hash and s.previous_confirm_token_at > now() - interval '7 days')
      );
  if found then return 'confirmed'; end if;
  if exists (
    select 1 from public.newsletter_subscribers s
    where s.state = 'confirmed' and (s.confirm_token_hash = token_hash or s.previous_confirm_token_hash = token_hash)
  ) then
    return 'already';
  end if;
  return 'unknown';
end
$$;

revoke all on function public.newsletter_issue_confirm_token(text, text, bigint, text) from public, anon, authenticated;
revoke all on function public.newsletter_confirm_reader(text) from public, anon, authenticated;
grant execute on function public.newsletter_issue_confirm_token(text, text, bigint, text) to anon;
grant execute on function public.newsletter_confirm_reader(text) to anon;
