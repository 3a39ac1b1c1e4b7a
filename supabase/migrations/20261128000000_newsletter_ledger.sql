-- One ledger of consent for the Supabase list: the same rules as the embedded store (app/newsletter/list/ledger.ts,
-- docs/decisions/026-one-ledger.md). Leaving is remembered by mailbox: a reader's unsubscribe, a complaint, a bounce
-- and an import's word that a reader left write a tombstone (a keyed hash of the mailbox, never the address, the
-- reason and the time), and every row that reaches that mailbox (any spelling: case, +tags, Gmail's dots,
-- googlemail.com) is suppressed. No import or owner's call revives it; only the person's own new sign-up, confirmed
-- by mail, lifts their own act; the owner's unsuppress lifts a bounce or an import's word and refuses the rest.

-- The ledger's key, kept with the list (never in the server's environment): a key rotated away would forget who left.
insert into newsletter_private.settings (name, value)
  values ('ledger_key', encode(extensions.gen_random_bytes(32), 'hex'))
  on conflict (name) do nothing;

-- The mailbox an address reaches, folded as app/newsletter/sign-up/mailbox-key.ts folds it.
create or replace function newsletter_private.mailbox_key(address text)
returns text
language plpgsql
immutable
set search_path = ''
as $$
declare
  folded text := lower(regexp_replace(address, '^\s+|\s+$', '', 'g'));
  back integer := strpos(reverse(folded), '@');
  at_sign integer;
  local_part text;
  domain text;
  plus integer;
begin
  if back = 0 then return folded; end if;
  at_sign := length(folded) - back + 1;
  if at_sign <= 1 then return folded; end if;
  local_part := substr(folded, 1, at_sign - 1);
  domain := regexp_replace(substr(folded, at_sign + 1), '\.+$', '');
  plus := strpos(local_part, '+');
  if plus > 1 then local_part := substr(local_part, 1, plus - 1); end if;
  if domain in ('gmail.com', 'googlemail.com') then
    domain := 'gmail.com';
    local_part := coalesce(nullif(replace(local_part, '.', ''), ''), local_part);
  end if;
  return local_part || '@' || domain;
end
$$;

-- The tombstone's name for the mailbox an address reaches: HMAC-SHA-256 of its folded form with the ledger's key.
create or replace function newsletter_private.mailbox_hash(address text)
returns text
language sql
stable
security definer
set search_path = ''
as $$
  select encode(extensions.hmac(newsletter_private.mailbox_key(address), s.value, 'sha256'), 'hex')
  from newsletter_private.settings s where s.name = 'ledger_key';
$$;

create table if not exists newsletter_private.tombstones (
  mailbox text primary key,
  reason text not null check (reason in ('unsubscribed', 'complained', 'bounced', 'imported')),
  at timestamptz not null
);
revoke all on table newsletter_private.tombstones from public, anon, authenticated;

-- The reader's own act outranks a bounce, which outranks an import's word.
create or replace function newsletter_private.stronger_reason(current_reason text, next_reason text)
returns text
language sql
immutable
set search_path = ''
as $$
  select case
    when current_reason is null then next_reason
    when array_position(array['imported', 'bounced', 'unsubscribed', 'complained'], current_reason)
      > array_position(array['imported', 'bounced', 'unsubscribed', 'complained'], next_reason) then current_reason
    else next_reason
  end;
$$;

-- A mailbox leaves: its tombstone is written (or strengthened), and every row that reaches it is suppressed with
-- `row_reason`, its mailed confirmation links dead. Rows suppressed already keep their own reason. The reason kept.
create or replace function newsletter_private.leave(
  address text, why text, row_reason text, words text, happened timestamptz
)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  box text := newsletter_private.mailbox_hash(address);
  kept text;
begin
  select newsletter_private.stronger_reason(t.reason, why) into kept
    from newsletter_private.tombstones t where t.mailbox = box for update;
  kept := coalesce(kept, why);
  insert into newsletter_private.tombstones as t (mailbox, reason, at) values (box, kept, happened)
    on conflict (mailbox) do update set reason = kept, at = greatest(t.at, excluded.at);
  update public.newsletter_subscribers s
    set suppressed_reason = row_reason, suppressed_detail = left(words, 1000), suppressed_at = happened,
        confirm_token_hash = null, previous_confirm_token_hash = null
    where newsletter_private.mailbox_hash(s.email) = box and s.suppressed_reason is null;
  return kept;
end
$$;

-- Whichever way a row becomes a reader (an insert, an import, a restore by hand), a mailbox that left is not mailed:
-- a confirmed row of a tombstoned mailbox is stored suppressed. Only the confirmation and unsuppress lift a tombstone,
-- before they touch the row.
create or replace function newsletter_private.ledger_guard()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
declare
  left_reason text;
  left_at timestamptz;
begin
  if new.state = 'confirmed' and new.suppressed_reason is null then
    select t.reason, t.at into left_reason, left_at
      from newsletter_private.tombstones t where t.mailbox = newsletter_private.mailbox_hash(new.email);
    if found then
      new.suppressed_reason := case when left_reason = 'imported' then 'unsubscribed' else left_reason end;
      new.suppressed_at := left_at;
      new.suppressed_detail := 'the mailbox left the list before';
    end if;
  end if;
  return new;
end
$$;

drop trigger if exists newsletter_subscribers_ledger on public.newsletter_subscribers;
create trigger newsletter_subscribers_ledger
  before insert or update on public.newsletter_subscribers
  for each row execute function newsletter_private.ledger_guard();

-- Readers suppressed before the ledger: their mailboxes are tombstoned.
insert into newsletter_private.tombstones (mailbox, reason, at)
  select distinct on (newsletter_private.mailbox_hash(s.email))
    newsletter_private.mailbox_hash(s.email),
    case when s.suppressed_reason in ('bounced', 'complained')
          and (s.consent_page is null or s.consent_page like '/%') then s.suppressed_reason
         else 'imported' end,
    coalesce(s.suppressed_at, s.created_at)
  from public.newsletter_subscribers s where s.suppressed_reason is not null
  on conflict (mailbox) do nothing;

-- The reader leaves by their link: the row goes, the mailbox is tombstoned.
create or replace function public.unsubscribe_newsletter(token uuid)
returns boolean
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  gone text;
begin
  delete from public.newsletter_subscribers s where s.unsubscribe_token = token returning s.email into gone;
  if gone is null then return false; end if;
  perform newsletter_private.leave(gone, 'unsubscribed', 'unsubscribed', 'left by their link', now());
  return true;
end
$$;

-- A relay's verdict or a complaint: the mailbox is tombstoned even when the address is not on the list (a complaint
-- about a mail to a reader who has since gone still says "never again"). 'suppressed', 'already' or 'unknown'.
create or replace function newsletter_private.suppress(address text, why text, words text, happened timestamptz)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  present boolean;
  found_reason text;
begin
  if why not in ('bounced', 'complained') then raise exception 'reason must be bounced or complained'; end if;
  select true, s.suppressed_reason into present, found_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  perform newsletter_private.leave(address, why, why, words, happened);
  if present is null then return 'unknown'; end if;
  if found_reason is not null then return 'already'; end if;
  return 'suppressed';
end
$$;

-- The owner's lift: 'lifted' (a bounce or an import's word, every spelling of the mailbox), 'not-suppressed', or
-- 'kept-unsubscribed' / 'kept-complained': the reader's own act, which only their own confirmed sign-up lifts.
create or replace function newsletter_private.lift(address text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  box text := newsletter_private.mailbox_hash(address);
  why text;
begin
  select t.reason into why from newsletter_private.tombstones t where t.mailbox = box;
  if why is null then
    select case when s.consent_page is null or s.consent_page like '/%' then s.suppressed_reason else 'imported' end
      into why
      from public.newsletter_subscribers s where lower(s.email) = lower(address) and s.suppressed_reason is not null;
  end if;
  if why is null then return 'not-suppressed'; end if;
  if why in ('unsubscribed', 'complained') then return 'kept-' || why; end if;
  delete from newsletter_private.tombstones t where t.mailbox = box;
  update public.newsletter_subscribers s
    set suppressed_reason = null, suppressed_detail = null, suppressed_at = null, soft_bounces = 0,
        last_soft_bounce_at = null
    where newsletter_private.mailbox_hash(s.email) = box and s.suppressed_reason is not null;
  return 'lifted';
end
$$;

-- The earlier boolean form (supabase/queries/suppressed-readers.sql), with the same refusal.
create or replace function newsletter_private.unsuppress(address text)
returns boolean
language sql
security definer
set search_path = ''
as $$
  select newsletter_private.lift(address) = 'lifted';
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
  return newsletter_private.lift(address);
end
$$;

-- A sign-up. A reader who left or was suppressed and signs up again is a new sign-up: the person asks, so the
-- confirmation goes ('subscribed'); the tombstone stays until they confirm.
create or replace function public.newsletter_sign_up(address text, page text, wording_version text, wording text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  present boolean;
  found_state text;
  found_reason text;
  requested timestamptz;
begin
  if not public.newsletter_confirmation_required() then
    raise exception 'newsletter confirmation is not configured (no confirm_signing_key)';
  end if;
  perform newsletter_private.expire_pending();
  select true, s.state, s.suppressed_reason, coalesce(s.confirm_requested_at, s.created_at)
    into present, found_state, found_reason, requested
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  if present is null or found_reason is not null then
    insert into public.newsletter_consent_wordings (version, wording) values (wording_version, wording)
      on conflict (version) do nothing;
  end if;
  if present then
    if found_reason is not null then
      update public.newsletter_subscribers s
        set state = 'pending', created_at = now(), unsubscribe_token = gen_random_uuid(), confirmed_at = null,
            consent_page = left(page, 200), consent_version = wording_version, confirm_requested_at = now(),
            confirm_token_hash = null, confirm_token_at = null, previous_confirm_token_hash = null,
            previous_confirm_token_at = null, suppressed_reason = null, suppressed_detail = null,
            suppressed_at = null, soft_bounces = 0, last_soft_bounce_at = null
        where lower(s.email) = lower(address);
      return 'subscribed';
    end if;
    if found_state = 'pending' and requested <= now() - interval '24 hours' then
      update public.newsletter_subscribers s set confirm_requested_at = now() where lower(s.email) = lower(address);
      return 'resend';
    end if;
    return 'duplicate';
  end if;
  insert into public.newsletter_subscribers (email, state, consent_page, consent_version, confirm_requested_at)
    values (address, 'pending', left(page, 200), wording_version, now());
  return 'subscribed';
exception when unique_violation then
  return 'duplicate';
end
$$;

-- As in 20261127120000, and the person's own confirmation lifts their mailbox's tombstone (before the row turns
-- confirmed, so the guard lets it be a reader).
create or replace function public.newsletter_confirm_reader(token text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
#variable_conflict use_variable
declare
  token_hash text := encode(sha256(convert_to(token, 'UTF8')), 'hex');
  confirming text;
begin
  select s.email into confirming from public.newsletter_subscribers s
    where s.state = 'pending' and s.suppressed_reason is null
      and (
        (s.confirm_token_hash = token_hash and s.confirm_token_at > now() - interval '7 days')
        or (s.previous_confirm_token_hash = token_hash and s.previous_confirm_token_at > now() - interval '7 days')
      )
    for update;
  if confirming is not null then
    delete from newsletter_private.tombstones t where t.mailbox = newsletter_private.mailbox_hash(confirming);
    update public.newsletter_subscribers s set state = 'confirmed', confirmed_at = now()
      where lower(s.email) = lower(confirming) and s.state = 'pending';
    return 'confirmed';
  end if;
  if exists (
    select 1 from public.newsletter_subscribers s
    where s.state = 'confirmed' and (s.confirm_token_hash = token_hash or s.previous_confirm_token_hash = token_hash)
  ) then
    return 'already';
  end if;
  return 'unknown';
end
$$;

-- An imported reader: 'added', 'suppressed' (a reader an earlier file brought in, whom this file says left) or
-- 'exists' (nothing changed: on the list, a mailbox that left, or a reader who signed up here and keeps their word).
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
declare
  box text := newsletter_private.mailbox_hash(address);
  present boolean;
  present_reason text;
  left_before boolean;
begin
  if imported_at is null or consent_note is null then
    raise exception 'an imported reader needs the import time and a consent note';
  end if;
  select true, s.suppressed_reason into present, present_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  left_before := exists (select 1 from newsletter_private.tombstones t where t.mailbox = box);
  if reason is null then
    if present or left_before then return 'exists'; end if;
  else
    if exists (
      select 1 from public.newsletter_subscribers s
      where newsletter_private.mailbox_hash(s.email) = box and (s.consent_page is null or s.consent_page like '/%')
    ) then
      return 'exists';
    end if;
    perform newsletter_private.leave(address, 'imported', reason, coalesce(detail, 'said so in the import'), imported_at);
    if present then return case when present_reason is null then 'suppressed' else 'exists' end; end if;
    if left_before then return 'exists'; end if;
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

revoke all on function newsletter_private.mailbox_key(text) from public, anon, authenticated;
revoke all on function newsletter_private.mailbox_hash(text) from public, anon, authenticated;
revoke all on function newsletter_private.stronger_reason(text, text) from public, anon, authenticated;
revoke all on function newsletter_private.leave(text, text, text, text, timestamptz) from public, anon, authenticated;
revoke all on function newsletter_private.ledger_guard() from public, anon, authenticated;
revoke all on function newsletter_private.lift(text) from public, anon, authenticated;
revoke all on function public.unsubscribe_newsletter(uuid) from public, anon, authenticated;
grant execute on function public.unsubscribe_newsletter(uuid) to anon;
revoke all on function public.newsletter_sign_up(text, text, text, text) from public, anon, authenticated;
grant execute on function public.newsletter_sign_up(text, text, text, text) to anon;
revoke all on function public.newsletter_confirm_reader(text) from public, anon, authenticated;
grant execute on function public.newsletter_confirm_reader(text) to anon;
revoke all on function public.newsletter_unsuppress(text, bigint, text) from public, anon, authenticated;
grant execute on function public.newsletter_unsuppress(text, bigint, text) to anon;
revoke all on function public.newsletter_import_reader(text, timestamptz, timestamptz, text, text, text)
  from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.newsletter_import_reader(text, timestamptz, timestamptz, text, text, text)
      to service_role;
    grant execute on function public.newsletter_unsuppress(text, bigint, text) to service_role;
  end if;
end
$$;
