-- Everything kept about one reader (an access request under GDPR art. 15), the Supabase twin of
-- `npm run subscribers -- show <address>`: put their address in place of reader@example.com and run it in the SQL
-- editor. It reads as the dashboard's own role, so it sees what the site's anon key never can.
select
  s.email,
  s.state,
  s.created_at as signed_up_at,
  s.confirmed_at,
  s.confirm_requested_at as last_confirmation_mail_asked_for,
  s.consent_page as from_page,
  s.consent_version as wording_version,
  w.wording as wording_agreed_to
from public.newsletter_subscribers as s
left join public.newsletter_consent_wordings as w on w.version = s.consent_version
where lower(s.email) = lower('reader@example.com');
