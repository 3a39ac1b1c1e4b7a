-- The readers who get no mail again, and why: the Supabase twin of `npm run subscribers -- list` and `unsuppress`.
-- Paste it in the SQL editor and run it. `why` is `bounced` (the relay refused the address for good, or three soft
-- bounces in a row), `complained` (the reader pressed "spam": they left the list) or `unsubscribed` (they had left
-- the tool an import came from); `relay_said` is the relay's words, or what the imported file said. Readers with soft bounces counted but not yet suppressed are listed too, with `why` empty.
select
  s.email,
  s.state,
  s.suppressed_reason as why,
  s.suppressed_at as since,
  s.suppressed_detail as relay_said,
  s.soft_bounces as soft_bounces_in_a_row,
  s.last_soft_bounce_at
from public.newsletter_subscribers as s
where s.suppressed_reason is not null or s.soft_bounces > 0
order by s.suppressed_at desc nulls last, s.email;

-- To mail a reader again (a mailbox that was full), remove the two dashes from the line below, put their address in
-- place of reader@example.com, and run it; it answers true when it lifted a suppression. A reader's own act (an
-- unsubscribe, a complaint) is never lifted this way: only their own new sign-up, confirmed by mail, lifts it.
-- select newsletter_private.unsuppress('reader@example.com');
