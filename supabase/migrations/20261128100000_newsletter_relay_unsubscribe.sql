-- A reader's own unsubscribe reported by a relay (Postmark's Subscription Change with ManualSuppression, the reader
-- pressing Postmark's unsubscribe link on a Broadcast stream): the same signed door as a bounce or a complaint, with
-- the reason 'unsubscribed'. The mailbox is tombstoned as the reader's own act, as the site's own unsubscribe doors
-- tombstone it, so no import, restore or owner's unsuppress revives it; only the person's own confirmed sign-up does.
-- The rows that reach the mailbox stay, suppressed, as the embedded list keeps them.

-- 'suppressed', 'already' (suppressed before) or 'unknown' (not on the list; the mailbox is tombstoned all the same).
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
  if why is null or why not in ('bounced', 'complained', 'unsubscribed') then
    raise exception 'reason must be bounced, complained or unsubscribed';
  end if;
  select true, s.suppressed_reason into present, found_reason
    from public.newsletter_subscribers s where lower(s.email) = lower(address) for update;
  perform newsletter_private.leave(address, why, why, words, happened);
  if present is null then return 'unknown'; end if;
  if found_reason is not null then return 'already'; end if;
  return 'suppressed';
end
$$;

revoke all on function newsletter_private.suppress(text, text, text, timestamptz) from public, anon, authenticated;
