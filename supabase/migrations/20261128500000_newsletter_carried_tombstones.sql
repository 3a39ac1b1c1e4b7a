-- Tombstones carried from an earlier list, as the embedded list carries them (docs/decisions/029-carried-tombstones.md,
-- docs/decisions/031-supabase-carried-tombstones.md). A backup's tombstones are hashes made with its list's key. A list
-- that took sign-ups, and lost a reader, before the owner restored the old project's backup keeps its own key, and
-- those hashes name nothing with it; the addresses were never kept to hash again. They were dropped, and every reader
-- who had left the old list came back with the next import of the same export. Now they are kept with the key they
-- were made with, every question about a mailbox asks them too, and a door that meets the mailbox moves its tombstone
-- to the list's own key, where the ledger's rules of 20261128000000 take it as ever.

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

-- As in 20261128400000, and the 'tombstones' part holds the carried ones too, each with the key it was made with (the
-- embedded backup's `key` of a tombstone), in the order of (mailbox, key): `after` is the last item's
-- "<mailbox>:<key>", or its mailbox alone for one of the list's own key.
create or replace function public.newsletter_backup_page(part text, after text, size integer)
returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  page jsonb;
  ledger_key text := (select s.value from newsletter_private.settings s where s.name = 'ledger_key');
  bounded integer := least(greatest(coalesce(size, 1000), 1), 5000);
  after_mailbox text := split_part(coalesce(after, ''), ':', 1);
  after_key text := split_part(coalesce(after, ''), ':', 2);
begin
  if part = 'readers' then
    select coalesce(jsonb_agg(to_jsonb(r) order by r.id), '[]'::jsonb) into page from (
      select s.id, s.email, s.created_at as "createdAt", s.unsubscribe_token as "unsubscribeToken", s.state,
             s.confirmed_at as "confirmedAt", s.consent_page as "consentPage", s.consent_version as "consentVersion",
             s.confirm_requested_at as "confirmRequestedAt", s.confirm_token_hash as "confirmTokenHash",
             s.confirm_token_at as "confirmTokenAt", s.previous_confirm_token_hash as "previousConfirmTokenHash",
             s.previous_confirm_token_at as "previousConfirmTokenAt", s.suppressed_reason as "suppressedReason",
             s.suppressed_at as "suppressedAt", s.suppressed_detail as "suppressedDetail"
      from public.newsletter_subscribers s
      where after is null or s.id > after::bigint
      order by s.id limit bounded
    ) r;
  elsif part = 'tombstones' then
    select coalesce(jsonb_agg(jsonb_strip_nulls(to_jsonb(t)) order by t.mailbox, coalesce(t.key, '')), '[]'::jsonb)
      into page from (
      select * from (
        select o.mailbox, o.reason, o.at, null::text as key from newsletter_private.tombstones o
        union all
        select c.mailbox, c.reason, c.at, c.key from newsletter_private.carried_tombstones c
      ) a
      where after is null or (a.mailbox, coalesce(a.key, '')) > (after_mailbox, after_key)
      order by a.mailbox, coalesce(a.key, '') limit bounded
    ) t;
  elsif part = 'wordings' then
    select coalesce(jsonb_agg(to_jsonb(w) order by w.version), '[]'::jsonb) into page from (
      select w.version, w.wording, w.first_used_at as "firstUsedAt" from public.newsletter_consent_wordings w
      where after is null or w.version > after
      order by w.version limit bounded
    ) w;
  else
    raise exception 'no part % in a backup', part;
  end if;
  return jsonb_build_object('key', ledger_key, 'rows', page);
end
$$;

-- As in 20261128400000, with the backup's tombstones of another key carried rather than dropped: each item's own key
-- (a tombstone the backup itself carried) or else the backup's. Answers "tombstonesCarried" where it answered
-- "tombstonesOtherKey". A list no one has left yet still takes the backup's key first (nothing carried either), so a
-- whole list moved to a new project keeps who left as its own. At the restore the live list's readers of a carried
-- mailbox leave with it, as decision 029 holds the embedded list: unless the person confirmed by their own mail's link
-- after the tombstone was made (that lifts it, as it would have in the old list); a sign-up waiting for its
-- confirmation keeps waiting; a row suppressed already keeps its own reason.
create or replace function public.newsletter_restore_page(
  backup_key text, readers jsonb, tombstones jsonb, wordings jsonb
)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  r jsonb;
  t jsonb;
  m record;
  address text;
  box text;
  made_with text;
  token uuid;
  hash text;
  ledger_key text;
  added jsonb := '[]'::jsonb;
  already integer := 0;
  left_since integer := 0;
  tombstones_added integer := 0;
  tombstones_kept integer := 0;
  carried integer := 0;
  carried_keys text[] := '{}';
  held text;
  adopted_at timestamptz;
begin
  if backup_key is not null and backup_key !~ '^[0-9a-f]{64}$' then
    raise exception 'a ledger key that is not of the store''s form';
  end if;
  select s.value into ledger_key from newsletter_private.settings s where s.name = 'ledger_key' for update;
  if backup_key is not null and backup_key is distinct from ledger_key
     and not exists (select 1 from newsletter_private.tombstones)
     and not exists (select 1 from newsletter_private.carried_tombstones) then
    -- Nobody has left this list yet (a new project, perhaps with sign-ups since the old one was lost): it takes the
    -- backup's key, and its rows' mailbox hashes are made again with it (the trigger makes a row's hash when it is
    -- null), so the backup's tombstones name their mailboxes here too.
    update newsletter_private.settings set value = backup_key where name = 'ledger_key';
    ledger_key := backup_key;
    update public.newsletter_subscribers set mailbox = null;
    -- Its readers until now came without the backup's history: only their own confirmation by mail outranks it.
    insert into newsletter_private.settings (name, value) values ('ledger_key_adopted_at', now()::text)
      on conflict (name) do update set value = excluded.value;
  end if;
  adopted_at := (select s.value::timestamptz from newsletter_private.settings s where s.name = 'ledger_key_adopted_at');

  for r in select * from jsonb_array_elements(coalesce(wordings, '[]'::jsonb)) loop
    insert into public.newsletter_consent_wordings (version, wording, first_used_at)
      values (r->>'version', r->>'wording', (r->>'firstUsedAt')::timestamptz)
      on conflict (version) do nothing;
  end loop;

  -- The backup's tombstones first: a reader read just before they left (a backup is read in pages, not in one
  -- snapshot) then stays left out below.
  for t in select * from jsonb_array_elements(coalesce(tombstones, '[]'::jsonb)) loop
    box := t->>'mailbox';
    made_with := coalesce(t->>'key', backup_key);
    if t->>'reason' not in ('unsubscribed', 'complained', 'bounced', 'imported') or box !~ '^[0-9a-f]{64}$'
       or made_with is null or made_with !~ '^[0-9a-f]{64}$' then
      raise exception 'a tombstone that is not of the store''s form';
    end if;
    if made_with is distinct from ledger_key then
      -- Made with another list's key: carried with it, never weakened.
      insert into newsletter_private.carried_tombstones as c (key, mailbox, reason, at)
        values (made_with, box, t->>'reason', (t->>'at')::timestamptz)
        on conflict (key, mailbox) do update
          set reason = newsletter_private.stronger_reason(c.reason, excluded.reason), at = greatest(c.at, excluded.at);
      if not made_with = any(carried_keys) then carried_keys := carried_keys || made_with; end if;
      carried := carried + 1;
      continue;
    end if;
    select x.reason into held from newsletter_private.tombstones x where x.mailbox = box for update;
    if found then
      -- Never weakened: the stronger reason stays, and the later time.
      update newsletter_private.tombstones x
        set reason = newsletter_private.stronger_reason(held, t->>'reason'),
            at = greatest(x.at, (t->>'at')::timestamptz)
        where x.mailbox = box;
      tombstones_kept := tombstones_kept + 1;
    elsif exists (
      select 1 from public.newsletter_subscribers s
      where s.mailbox = box and s.state = 'confirmed' and s.suppressed_reason is null
        and (adopted_at is null or s.created_at >= adopted_at
             or (s.confirm_token_hash is not null and s.consent_page like '/%'
                 and s.confirmed_at > (t->>'at')::timestamptz))
    ) then
      -- A reader of this list's own history whose mailbox's tombstone is missing: it was lifted since (their own
      -- confirmed sign-up, or the owner's unsuppress of a bounce), and stays lifted. A reader the list had before it
      -- took the backup's key knew nothing of that history: only their own confirmation by mail since outranks it.
      tombstones_kept := tombstones_kept + 1;
    else
      insert into newsletter_private.tombstones (mailbox, reason, at)
        values (box, t->>'reason', (t->>'at')::timestamptz);
      -- A reader of that mailbox now (an import, a sign-up while mail was off) leaves with it; a sign-up waiting for
      -- its confirmation keeps waiting: the person asked again, and their confirmation lifts it, as ever.
      update public.newsletter_subscribers s
        set suppressed_reason = case t->>'reason' when 'imported' then 'unsubscribed' else t->>'reason' end,
            suppressed_at = (t->>'at')::timestamptz, suppressed_detail = 'the mailbox left the list before'
        where s.mailbox = box and s.state = 'confirmed' and s.suppressed_reason is null;
      tombstones_added := tombstones_added + 1;
    end if;
  end loop;

  -- The live list's readers of a mailbox this page carries: each row hashed once per key the page carries. First the
  -- person's own confirmation after the tombstone was made, which lifts it for every spelling of the mailbox.
  for m in
    select c.key, c.mailbox from unnest(carried_keys) k(key)
      cross join public.newsletter_subscribers s
      join newsletter_private.carried_tombstones c
        on c.key = k.key
       and c.mailbox = encode(extensions.hmac(newsletter_private.mailbox_key(s.email), k.key, 'sha256'), 'hex')
    where s.state = 'confirmed' and s.confirm_token_hash is not null
      and (s.consent_page is null or s.consent_page like '/%') and s.confirmed_at > c.at
  loop
    delete from newsletter_private.carried_tombstones c where c.key = m.key and c.mailbox = m.mailbox;
  end loop;
  -- The rest move to the list's key, and their readers stop being mailed (a waiting sign-up keeps waiting).
  for m in
    select c.key, c.mailbox, c.reason, c.at, s.id, s.mailbox as own from unnest(carried_keys) k(key)
      cross join public.newsletter_subscribers s
      join newsletter_private.carried_tombstones c
        on c.key = k.key
       and c.mailbox = encode(extensions.hmac(newsletter_private.mailbox_key(s.email), k.key, 'sha256'), 'hex')
  loop
    delete from newsletter_private.carried_tombstones c where c.key = m.key and c.mailbox = m.mailbox;
    insert into newsletter_private.tombstones as x (mailbox, reason, at) values (m.own, m.reason, m.at)
      on conflict (mailbox) do update
        set reason = newsletter_private.stronger_reason(x.reason, excluded.reason), at = greatest(x.at, excluded.at);
    update public.newsletter_subscribers s
      set suppressed_reason = case m.reason when 'imported' then 'unsubscribed' else m.reason end,
          suppressed_at = m.at, suppressed_detail = 'the mailbox left the list before',
          confirm_token_hash = null, previous_confirm_token_hash = null
      where s.id = m.id and s.state = 'confirmed' and s.suppressed_reason is null;
  end loop;

  for r in select * from jsonb_array_elements(coalesce(readers, '[]'::jsonb)) loop
    address := r->>'email';
    box := newsletter_private.mailbox_hash(address);
    -- A mailbox the list carries is met here: its tombstone moves to the list's key, and is asked as its own below.
    perform newsletter_private.take_carried(address);
    if exists (select 1 from public.newsletter_subscribers s where lower(s.email) = lower(address)) then
      already := already + 1;
    -- A mailbox that left after the backup stays gone; a suppressed row comes back as the record it was (never mailed).
    elsif r->>'suppressedReason' is null
          and exists (select 1 from newsletter_private.tombstones x where x.mailbox = box) then
      left_since := left_since + 1;
    else
      -- The reader's old link keeps working, unless the token is somehow someone else's now; likewise a pending
      -- reader's mailed confirmation link.
      token := case when coalesce(r->>'unsubscribeToken', '') ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                    then (r->>'unsubscribeToken')::uuid end;
      if token is null or exists (select 1 from public.newsletter_subscribers s where s.unsubscribe_token = token) then
        token := gen_random_uuid();
      end if;
      hash := r->>'confirmTokenHash';
      if hash is not null and exists (select 1 from public.newsletter_subscribers s where s.confirm_token_hash = hash) then
        hash := null;
      end if;
      insert into public.newsletter_subscribers (
        email, created_at, unsubscribe_token, state, confirmed_at, consent_page, consent_version, confirm_requested_at,
        confirm_token_hash, confirm_token_at, previous_confirm_token_hash, previous_confirm_token_at,
        suppressed_reason, suppressed_at, suppressed_detail
      ) values (
        address, (r->>'createdAt')::timestamptz, token, coalesce(r->>'state', 'confirmed'),
        (r->>'confirmedAt')::timestamptz, r->>'consentPage', r->>'consentVersion',
        (r->>'confirmRequestedAt')::timestamptz, hash, (r->>'confirmTokenAt')::timestamptz,
        case when hash is null then null else r->>'previousConfirmTokenHash' end,
        (r->>'previousConfirmTokenAt')::timestamptz, r->>'suppressedReason', (r->>'suppressedAt')::timestamptz,
        left(r->>'suppressedDetail', 1000)
      );
      added := added || to_jsonb(address);
    end if;
  end loop;

  return jsonb_build_object(
    'added', added, 'alreadyThere', already, 'leftSince', left_since, 'tombstonesAdded', tombstones_added,
    'tombstonesKept', tombstones_kept, 'tombstonesCarried', carried
  );
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
revoke all on function public.newsletter_backup_page(text, text, integer) from public, anon, authenticated;
revoke all on function public.newsletter_restore_page(text, jsonb, jsonb, jsonb) from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.newsletter_import_reader(text, timestamptz, timestamptz, text, text, text)
      to service_role;
    grant execute on function public.newsletter_backup_page(text, text, integer) to service_role;
    grant execute on function public.newsletter_restore_page(text, jsonb, jsonb, jsonb) to service_role;
  end if;
end
$$;
