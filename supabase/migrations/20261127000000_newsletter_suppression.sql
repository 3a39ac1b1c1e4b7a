-- Suppressed readers (issue 40) for the Supabase list: an address a relay refused for good (a hard bounce, or three
-- soft bounces in a row) or whose reader pressed "spam" gets no mail of any kind again until the owner lifts it. The
-- row stays, so a new sign-up is a duplicate that mails nothing. And a reused confirm link of a confirmed reader is
-- told apart from an unknown one (issue 41): the used token's hash stays with the reader.
--
-- Who may suppress: the server, whose calls are signed with SUPABASE_CONFIRM_SECRET (the confirm_signing_key of
-- newsletter_private.settings, see the confirmation migration), or the update command with the service role key. The
-- anon key alone can neither read nor change a suppression. The owner, in the SQL editor, calls the newsletter_private
-- functions directly (supabase/queries/suppressed-readers.sql).

alter table public.newsletter_subscribers
  add column if not exists suppressed_reason text,
  add column if not exists suppressed_detail text,
  add column if not exists suppressed_at timestamptz,
  add column if not exists soft_bounces integer not null default 0,
  add column if not exists last_soft_bounce_at timestamptz;

do $$
begin
  if not exists (select 1 from pg_constraint where conname = 'newsletter_subscribers_suppressed_reason_check') then
    alter table public.newsletter_subscribers
      add constraint newsletter_subscribers_suppressed_reason_check
      check (suppressed_reason in ('bounced', 'complained'));
  end if;
end
$$;

-- Whether the caller is the server or the update command: the service role (PostgREST sets the request's role), or a
-- call signed with the stored key over `message` and `issued_at` (the server's clock in milliseconds, within 10
-- minutes). Private: a caller cannot ask it to check a signature for them.
create or replace function newsletter_private.trusted_caller(message text, issued_at bigint, signature text)
returns boolean
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  signing_key text;
begin
  if current_setting('role', true) = 'service_role' then return true; end if;
  select value into signing_key from newsletter_private.settings where name = 'confirm_signing_key';
  return signing_key is not null
    and issued_at is not null
    and abs(extract(epoch from now()) * 1000 - issued_at) <= 600000
    and signature is not distinct from encode(
      extensions.hmac(message || E'\n' || issued_at::text, signing_key, 'sha256'), 'hex');
end
$$;

-- The work itself, unsigned: only the owner (SQL editor) and the signed functions below reach these.
-- 'suppressed', 'already' (suppressed before) or 'unknown' (not on the list). A pending reader's mailed link stops
-- working: a suppressed address cannot be confirmed into a send.
create or replace function newsletter_private.suppress(address text, why text, words text, happened timestamptz)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  found_reason text;
begin
  if why not in ('bounced', 'complained') then raise exception 'reason must be bounced or complained'; end if;
  select s.suppressed_reason into found_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  if not found then return 'unknown'; end if;
  if found_reason is not null then return 'already'; end if;
  update public.newsletter_subscribers s
    set suppressed_reason = why, suppressed_detail = left(words, 1000), suppressed_at = happened,
        confirm_token_hash = null
    where lower(s.email) = lower(address);
  return 'suppressed';
end
$$;

-- One soft bounce; the third in a row (no delivery between) suppresses as bounced. The same report twice (same time,
-- as a relay's retry carries) counts once: 'counted', 'suppressed', 'already' or 'unknown'.
create or replace function newsletter_private.soft_bounce(address text, words text, happened timestamptz)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  found_reason text;
  last_at timestamptz;
  bounces integer;
begin
  select s.suppressed_reason, s.last_soft_bounce_at, s.soft_bounces + 1 into found_reason, last_at, bounces
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  if not found then return 'unknown'; end if;
  if found_reason is not null or last_at is not distinct from happened then return 'already'; end if;
  update public.newsletter_subscribers s set soft_bounces = bounces, last_soft_bounce_at = happened
    where lower(s.email) = lower(address);
  if bounces < 3 then return 'counted'; end if;
  return newsletter_private.suppress(
    address, 'bounced', bounces::text || ' soft bounces in a row; the last: ' || words, happened);
end
$$;

-- A mail reached the reader's server: soft bounces count "in a row", so the count starts again.
create or replace function newsletter_private.delivered(address text)
returns void
language sql
security definer
set search_path = ''
as $$
  update public.newsletter_subscribers set soft_bounces = 0
  where lower(email) = lower(address) and soft_bounces > 0;
$$;

-- Lifts a suppression (a mailbox that was full); whether the address was suppressed.
create or replace function newsletter_private.unsuppress(address text)
returns boolean
language sql
security definer
set search_path = ''
as $$
  with lifted as (
    update public.newsletter_subscribers
    set suppressed_reason = null, suppressed_detail = null, suppressed_at = null, soft_bounces = 0,
        last_soft_bounce_at = null
    where lower(email) = lower(address) and suppressed_reason is not null
    returning 1
  )
  select exists (select 1 from lifted);
$$;

-- The signed doors, callable with the anon key: each answers 'refused' (and changes nothing) unless the caller is the
-- server or the update command. Times are milliseconds since the epoch. The signed message is the function's name,
-- then its arguments one a line, the relay's words last (they may hold a line break).
create or replace function public.newsletter_suppress(
  address text, reason text, detail text, happened_at bigint, issued_at bigint, signature text
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
begin
  if not newsletter_private.trusted_caller(
    concat_ws(E'\n', 'newsletter_suppress', address, reason, happened_at::text, detail), issued_at, signature)
  then
    return 'refused';
  end if;
  return newsletter_private.suppress(address, reason, detail, to_timestamp(happened_at / 1000.0));
end
$$;

create or replace function public.newsletter_soft_bounce(
  address text, detail text, happened_at bigint, issued_at bigint, signature text
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
begin
  if not newsletter_private.trusted_caller(
    concat_ws(E'\n', 'newsletter_soft_bounce', address, happened_at::text, detail), issued_at, signature)
  then
    return 'refused';
  end if;
  return newsletter_private.soft_bounce(address, detail, to_timestamp(happened_at / 1000.0));
end
$$;

create or replace function public.newsletter_delivered(address text, issued_at bigint, signature text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
begin
  if not newsletter_private.trusted_caller(concat_ws(E'\n', 'newsletter_delivered', address), issued_at, signature)
  then
    return 'refused';
  end if;
  perform newsletter_private.delivered(address);
  return 'done';
end
$$;

create or replace function public.newsletter_unsuppress(address text, issued_at bigint, signature text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
begin
  if not newsletter_private.trusted_caller(concat_ws(E'\n', 'newsletter_unsuppress', address), issued_at, signature)
  then
    return 'refused';
  end if;
  return case when newsletter_private.unsuppress(address) then 'lifted' else 'not-suppressed' end;
end
$$;

revoke all on function newsletter_private.trusted_caller(text, bigint, text) from public, anon, authenticated;
revoke all on function newsletter_private.suppress(text, text, text, timestamptz) from public, anon, authenticated;
revoke all on function newsletter_private.soft_bounce(text, text, timestamptz) from public, anon, authenticated;
revoke all on function newsletter_private.delivered(text) from public, anon, authenticated;
revoke all on function newsletter_private.unsuppress(text) from public, anon, authenticated;
revoke all on function public.newsletter_suppress(text, text, text, bigint, bigint, text)
  from public, anon, authenticated;
revoke all on function public.newsletter_soft_bounce(text, text, bigint, bigint, text) from public, anon, authenticated;
revoke all on function public.newsletter_delivered(text, bigint, text) from public, anon, authenticated;
revoke all on function public.newsletter_unsuppress(text, bigint, text) from public, anon, authenticated;
grant execute on function public.newsletter_suppress(text, text, text, bigint, bigint, text) to anon;
grant execute on function public.newsletter_soft_bounce(text, text, bigint, bigint, text) to anon;
grant execute on function public.newsletter_delivered(text, bigint, text) to anon;
grant execute on function public.newsletter_unsuppress(text, bigint, text) to anon;
-- Supabase's default privileges give the service role every function in public; said here too, in case they do not.
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.newsletter_suppress(text, text, text, bigint, bigint, text) to service_role;
    grant execute on function public.newsletter_soft_bounce(text, text, bigint, bigint, text) to service_role;
    grant execute on function public.newsletter_delivered(text, bigint, text) to service_role;
    grant execute on function public.newsletter_unsuppress(text, bigint, text) to service_role;
  end if;
end
$$;
