-- Each row stores the hash of the mailbox it reaches (newsletter_private.mailbox_hash of its address, the name its
-- tombstone would have), indexed, as the embedded list stores its own `mailbox` column. The ledger's lookups "every row
-- of this mailbox" used to hash every row's address at each call: a leaving, a lift or an import was a scan of the
-- whole list, and an import of N readers N such scans. They now read the index.
--
-- The trigger keeps the column right whatever writes a row (an anon insert, a function, the owner in the SQL editor):
-- it is always the hash of the row's address, never a value a caller chose.

alter table public.newsletter_subscribers add column if not exists mailbox text;

-- The ledger's guard, as in 20261128000000, and first the row's mailbox: on insert, and on an update that changes
-- the address or touches the column (an update that leaves both alone keeps the stored hash, with no HMAC).
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

-- Existing rows: the update fires the guard, which fills the column (and changes nothing else: a confirmed row of a
-- tombstoned mailbox is suppressed already, by the same guard when it was written or by the ledger's leave).
update public.newsletter_subscribers set mailbox = null where mailbox is null;

alter table public.newsletter_subscribers alter column mailbox set not null;
create index if not exists newsletter_subscribers_mailbox on public.newsletter_subscribers (mailbox);

-- As in 20261128000000, with "the rows of this mailbox" read from the index.
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
    where s.mailbox = box and s.suppressed_reason is null;
  return kept;
end
$$;

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
    where s.mailbox = box and s.suppressed_reason is not null;
  return 'lifted';
end
$$;

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

revoke all on function newsletter_private.ledger_guard() from public, anon, authenticated;
revoke all on function newsletter_private.leave(text, text, text, text, timestamptz) from public, anon, authenticated;
revoke all on function newsletter_private.lift(text) from public, anon, authenticated;
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
