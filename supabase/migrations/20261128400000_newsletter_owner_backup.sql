-- The owner's backup and restore of the Supabase list (npm run subscribers -- backup / restore, with the service role
-- key given to that command alone; docs/decisions/030-supabase-backups.md). Supabase's own dashboard backups hold the
-- tombstones too, but restoring one puts back the list as it was, dropping every tombstone made since: readers who
-- left would be mailed again. The owner's backup file is the embedded store's (a SQLite file), and its restore follows
-- the ledger's `restore` door (app/newsletter/list/ledger.ts): an absent address comes back with its state, consent
-- record and suppression; an address on the list is left as it is; a mailbox that left since stays gone.

-- One page of what a backup holds, in a stable order, after the last key of the page before (null: from the start):
-- part 'readers' (by id), 'tombstones' or 'wordings' (by version). With each page, the ledger's key, so a backup's
-- tombstones travel with the key that names their mailboxes. The 'tombstones' part holds those the list carries too
-- (20261128500000_newsletter_carried_tombstones.sql), each with the key it was made with (the embedded backup's `key`
-- of a tombstone), in the order of (mailbox, key): `after` is the last item's "<mailbox>:<key>", or its mailbox alone
-- for one of the list's own key.
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

-- Puts a page of a backup back, each item checked by the owner's command first (app/newsletter/backups/
-- row-checks.server.ts) and by the table's own constraints here. Answers what it did:
-- {"added": [addresses], "alreadyThere": n, "leftSince": n, "tombstonesAdded": n, "tombstonesKept": n,
--  "tombstonesCarried": n}.
-- A keyed hash cannot be named again with another key, and the addresses the tombstones stood for are not kept
-- anywhere. So a list no one has left yet (a new project) takes the backup's key first, and a whole list moved to a
-- new project keeps who left as its own; otherwise the backup's tombstones of another key are carried with their key
-- (each item's own, for one the backup itself carried, or else the backup's; 20261128500000). At the restore the live
-- list's readers of a carried mailbox leave with it, as decision 029 holds the embedded list: unless the person
-- confirmed by their own mail's link after the tombstone was made (that lifts it, as it would have in the old list); a
-- sign-up waiting for its confirmation keeps waiting; a row suppressed already keeps its own reason.
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

-- The service role only: the whole list, its tombstones and its key are the owner's.
revoke all on function public.newsletter_backup_page(text, text, integer) from public, anon, authenticated;
revoke all on function public.newsletter_restore_page(text, jsonb, jsonb, jsonb) from public, anon, authenticated;
do $$
begin
  if exists (select 1 from pg_roles where rolname = 'service_role') then
    grant execute on function public.newsletter_backup_page(text, text, integer) to service_role;
    grant execute on function public.newsletter_restore_page(text, jsonb, jsonb, jsonb) to service_role;
  end if;
end
$$;
