-- Double opt-in (issue 31) for the Supabase list. Readers from before are confirmed. Once the owner stores a signing
-- key (below), a sign-up is pending until its reader presses 'Confirm' on the page their mail links to:
--
--   insert into newsletter_private.settings (name, value) values ('confirm_signing_key', '<SUPABASE_CONFIRM_SECRET>');
--
-- The anon key, even if it were public, can neither read an address nor confirm one without the token that was
-- mailed: only the server, which holds the same key, can attach a token's hash to a reader (its call is signed with
-- HMAC-SHA-256), the token itself is never stored, and the confirm function takes the token, not its hash.

create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;

-- What only the database's owner sees: no API role may use this schema.
create schema if not exists newsletter_private;
revoke all on schema newsletter_private from public, anon, authenticated;

create table if not exists newsletter_private.settings (
  name text primary key,
  value text not null
);
revoke all on table newsletter_private.settings from public, anon, authenticated;

alter table public.newsletter_subscribers
  add column if not exists state text not null default 'confirmed',
  add column if not exists confirmed_at timestamptz,
  add column if not exists consent_page text,
  add column if not exists consent_version text,
  add column if not exists confirm_requested_at timestamptz,
  add column if not exists confirm_token_hash text,
  add column if not exists confirm_token_at timestamptz;

do $$
begin
  if not exists (select 1 from pg_constraint where conname = 'newsletter_subscribers_state_check') then
    alter table public.newsletter_subscribers
      add constraint newsletter_subscribers_state_check check (state in ('pending', 'confirmed'));
  end if;
end
$$;

create unique index if not exists newsletter_subscribers_confirm_token_hash_key
  on public.newsletter_subscribers (confirm_token_hash);

-- Each wording a reader agreed to, kept whole: a later edit of the dialog adds a version, never rewrites one.
create table if not exists public.newsletter_consent_wordings (
  version text primary key check (char_length(version) <= 64),
  wording text not null check (char_length(wording) <= 4000),
  first_used_at timestamptz not null default now()
);
alter table public.newsletter_consent_wordings enable row level security;
revoke all on table public.newsletter_consent_wordings from public, anon, authenticated;

-- Whether sign-ups wait for a confirmation here: the owner stored a signing key.
create or replace function public.newsletter_confirmation_required()
returns boolean
language sql
stable
security definer
set search_path = ''
as $$
  select exists (select 1 from newsletter_private.settings where name = 'confirm_signing_key');
$$;

-- A direct insert by an API role (the product before confirmation, or anyone with the anon key) cannot skip the
-- confirmation: with a signing key stored, it is pending like any other sign-up (and expires like one).
create or replace function public.newsletter_subscribers_before_insert()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if current_user in ('anon', 'authenticated') and public.newsletter_confirmation_required() then
    new.state := 'pending';
    new.confirmed_at := null;
    new.confirm_requested_at := now();
  end if;
  return new;
end
$$;

drop trigger if exists newsletter_subscribers_before_insert on public.newsletter_subscribers;
create trigger newsletter_subscribers_before_insert
  before insert on public.newsletter_subscribers
  for each row execute function public.newsletter_subscribers_before_insert();

-- Pending readers are removed 7 days after their latest confirmation mail was asked for.
create or replace function newsletter_private.expire_pending()
returns void
language sql
security definer
set search_path = ''
as $$
  delete from public.newsletter_subscribers
  where state = 'pending' and coalesce(confirm_requested_at, created_at) <= now() - interval '7 days';
$$;
revoke all on function newsletter_private.expire_pending() from public, anon, authenticated;

-- A sign-up with confirmation: 'subscribed' (stored pending: mail it), 'resend' (pending, its last mail asked for 24
-- hours ago or more: mail it again), or 'duplicate'.
create or replace function public.newsletter_sign_up(address text, page text, wording_version text, wording text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  found_state text;
  requested timestamptz;
begin
  if not public.newsletter_confirmation_required() then
    raise exception 'newsletter confirmation is not configured (no confirm_signing_key)';
  end if;
  perform newsletter_private.expire_pending();
  select s.state, coalesce(s.confirm_requested_at, s.created_at) into found_state, requested
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  if found then
    if found_state = 'pending' and requested <= now() - interval '24 hours' then
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

-- Attaches the hash of the token about to be mailed to a pending reader: 'issued', 'gone' (not on the list, or
-- expired), 'confirmed', or 'refused' (no valid signature: the caller is not the server). `issued_at` is the
-- server's clock in milliseconds; a signature older or newer than 10 minutes is refused.
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
  select s.state into found_state from public.newsletter_subscribers s where lower(s.email) = lower(address);
  if not found then return 'gone'; end if;
  if found_state <> 'pending' then return 'confirmed'; end if;
  update public.newsletter_subscribers s set confirm_token_hash = token_hash, confirm_token_at = now()
    where lower(s.email) = lower(address);
  return 'issued';
end
$$;

-- Confirms the pending reader whose mailed token this is, if it is at most 7 days old; answers whether it did.
create or replace function public.newsletter_confirm(token text)
returns boolean
language sql
security definer
set search_path = ''
as $$
  with confirmed as (
    update public.newsletter_subscribers
    set state = 'confirmed', confirmed_at = now(), confirm_token_hash = null
    where confirm_token_hash = encode(sha256(convert_to(token, 'UTF8')), 'hex')
      and state = 'pending'
      and confirm_token_at > now() - interval '7 days'
    returning 1
  )
  select exists (select 1 from confirmed);
$$;

revoke all on function public.newsletter_confirmation_required() from public, anon, authenticated;
revoke all on function public.newsletter_subscribers_before_insert() from public, anon, authenticated;
revoke all on function public.newsletter_sign_up(text, text, text, text) from public, anon, authenticated;
revoke all on function public.newsletter_issue_confirm_token(text, text, bigint, text) from public, anon, authenticated;
revoke all on function public.newsletter_confirm(text) from public, anon, authenticated;
grant execute on function public.newsletter_confirmation_required() to anon;
grant execute on function public.newsletter_sign_up(text, text, text, text) to anon;
grant execute on function public.newsletter_issue_confirm_token(text, text, bigint, text) to anon;
grant execute on function public.newsletter_confirm(text) to anon;
