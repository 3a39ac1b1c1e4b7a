-- Tombstones carried from an earlier list, as the embedded list carries them (docs/decisions/029-carried-tombstones.md,
-- docs/decisions/031-supabase-carried-tombstones.md). A backup's tombstones are hashes made with its list's key. A list
-- that took sign-ups, and lost a reader, before the owner restored the old project's backup keeps its own key, and
-- those hashes name nothing with it; the addresses were never kept to hash again. They were dropped, and every reader
-- who had left the old list came back with the next import of the same export. Now they are kept with the key they
-- were made with, every question about a mailbox asks them too, and a door that meets the mailbox moves its tombstone
-- to the list's own key, where the ledger's rules of 20261128000000 take it as ever.
-- The owner's backup and restore pages (20261128400000_newsletter_owner_backup.sql) read and write them.

create table if not exists newsletter_private.carried_tombstones (
  key text not null check (key ~ '^[0-9a-f]{64}$'),
  mailbox text not null check (mailbox ~ '^[0-9a-f]{64}$'),
  reason text not null check (reason in ('unsubscribed', 'complained', 'bounced', 'imported')),
  at timestamptz not null,
  primary key (key, mailbox)
);
revoke all on table newsletter_private.carried_tombstones from public, anon, authenticated;

-- The keys of the earlier lists whose tombstones this one carries (none, nearly always): one index seek per key, since
-- every door asks and a plain "distinct" would read every carried tombstone each time.
create or replace function newsletter_private.carried_keys()
returns setof text
language sql
stable
security definer
set search_path = ''
as $$
  with recursive k(key) as (
    select min(c.key) from newsletter_private.carried_tombstones c
    union all
    select (select min(c.key) from newsletter_private.carried_tombstones c where c.key > k.key) from k
    where k.key is not null
  )
  select k.key from k where k.key is not null;
$$;

-- A door meets the mailbox `address` reaches: its carried tombstones (one per earlier key at most) move to the list's
-- own key, merged with any it has there (the stronger reason, the later time). Answers the reason moved, or null.
create or replace function newsletter_private.take_carried(address text)
returns text
language plpgsql
security definer
set search_path = ''
as $$
declare
  -- The keys first, whole: the loop deletes from the table they are read from. Nearly always none: then nothing is
  -- folded or hashed, on the guard's path of every row written.
  earlier_keys text[] := array(select newsletter_private.carried_keys());
  folded text;
  earlier text;
  found_reason text;
  found_at timestamptz;
  kept text;
  latest timestamptz;
begin
  if cardinality(earlier_keys) = 0 then return null; end if;
  folded := newsletter_private.mailbox_key(address);
  foreach earlier in array earlier_keys loop
    delete from newsletter_private.carried_tombstones c
      where c.key = earlier and c.mailbox = encode(extensions.hmac(folded, earlier, 'sha256'), 'hex')
      returning c.reason, c.at into found_reason, found_at;
    if found then
      kept := newsletter_private.stronger_reason(kept, found_reason);
      latest := greatest(latest, found_at);
    end if;
  end loop;
  if kept is null then return null; end if;
  insert into newsletter_private.tombstones as t (mailbox, reason, at)
    values (newsletter_private.mailbox_hash(address), kept, latest)
    on conflict (mailbox) do update
      set reason = newsletter_private.stronger_reason(t.reason, excluded.reason), at = greatest(t.at, excluded.at);
  return kept;
end
$$;

-- As in 20261128200000, and a carried tombstone of the row's mailbox counts as the list's own.
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
  if tg_op = 'INSERT' or new.mailbox is null or new.email is distinct from old.email
     or new.mailbox is distinct from old.mailbox then
    new.mailbox := newsletter_private.mailbox_hash(new.email);
  end if;
  if new.state = 'confirmed' and new.suppressed_reason is null then
    perform newsletter_private.take_carried(new.email);
    select t.reason, t.at into left_reason, left_at
      from newsletter_private.tombstones t where t.mailbox = new.mailbox;
    if found then
      new.suppressed_reason := case when left_reason = 'imported' then 'unsubscribed' else left_reason end;
      new.suppressed_at := left_at;
      new.suppressed_detail := 'the mailbox left the list before';
    end if;
  end if;
  return new;
end
$$;

-- As in 20261128200000: leaving again strengthens a carried tombstone, moved to the list's key first.
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
  perform newsletter_private.take_carried(address);
  select newsletter_private.stronger_reason(t.reason, why) into kept
    from newsletter_private.tombstones t where t.mailbox = box for update;
  kept := coalesce(kept, why);
  insert into newsletter_private.tombstones as t (mailbox, reason, at) values (box, kept, happened)
    on conflict (mailbox) do update set reason = kept, at = greatest(t.at, excluded.at);
  update public.newsletter_subscribers s
    set suppressed_reason = row_reason, suppressed_detail = left(words, 1000), suppressed_at = happened,
        confirm_token_hash = null, previous_confirm_token_hash = null
    where s.mailbox = box and s.suppressed_reason is null;
  return kept;
end
$$;

-- As in 20261128200000: the owner's lift sees a carried tombstone as the list's own (a bounce lifted, a reader's own
-- act refused).
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
  perform newsletter_private.take_carried(address);
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
    where s.mailbox = box and s.suppressed_reason is not null;
  return 'lifted';
end
$$;

-- As in 20261128000000: the person's own confirmation lifts a carried tombstone of their mailbox too.
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
    perform newsletter_private.take_carried(confirming);
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

-- As in 20261128200000: a mailbox that left the earlier list is one that left.
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
  perform newsletter_private.take_carried(address);
  select true, s.suppressed_reason into present, present_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  left_before := exists (select 1 from newsletter_private.tombstones t where t.mailbox = box);
  if reason is null then
    if present or left_before then return 'exists'; end if;
  else
    if exists (
      select 1 from public.newsletter_subscribers s
      where s.mailbox = box and (s.consent_page is null or s.consent_page like '/%')
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

revoke all on function newsletter_private.carried_keys() from public, anon, authenticated;
revoke all on function newsletter_private.take_carried(text) from public, anon, authenticated;
revoke all on function newsletter_private.ledger_guard() from public, anon, authenticated;
revoke all on function newsletter_private.leave(text, text, text, text, timestamptz) from public, anon, authenticated;
revoke all on function newsletter_private.lift(text) from public, anon, authenticated;
revoke all on function public.newsletter_confirm_reader(text) from public, anon, authenticated;
grant execute on function public.newsletter_confirm_reader(text) to anon;
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
