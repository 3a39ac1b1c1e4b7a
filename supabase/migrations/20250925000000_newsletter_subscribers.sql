-- Newsletter sign-ups from anonymous visitors.
--
-- Access model: the browser holds only the public anon key, so the database itself must guarantee that
-- a visitor can add an address and nothing else. Reading the list is reserved for the service role
-- (which bypasses row level security) and the dashboard.
--
-- Written to be re-runnable: every statement either checks for existence or replaces what it creates.

create table if not exists public.newsletter_subscribers (
  id bigint generated always as identity primary key,
  email text not null,
  created_at timestamptz not null default now(),
  -- Backstop for the client-side rules (trimmed, at most 255 characters, looks like an address). It is
  -- deliberately looser than the client's validator so a value the form accepts is never refused here;
  -- char_length counts code points, which never exceed the UTF-16 units the browser counts.
  constraint newsletter_subscribers_email_check check (
    char_length(email) <= 255
    and email !~ '\s'
    and email ~ '^[^@]+@[^@]+$'
  )
);

comment on table public.newsletter_subscribers is 'Newsletter sign-ups; insert-only for anon, never readable by visitors.';

-- Uniqueness is case-insensitive so 'Foo@Example.com' after 'foo@example.com' raises 23505, which the app
-- turns into "Already subscribed". The index name appears in the error message the client receives.
create unique index if not exists newsletter_subscribers_email_lower_key
  on public.newsletter_subscribers (lower(email));

alter table public.newsletter_subscribers enable row level security;

-- Supabase's default privileges grant every table in public to anon and authenticated; take them all
-- back and hand out exactly one right. The column list stops a visitor from choosing created_at (or id,
-- which is generated always anyway). No sequence grant is needed: identity columns draw their value
-- without a usage check on the sequence.
revoke all on table public.newsletter_subscribers from anon, authenticated;
grant insert (email) on table public.newsletter_subscribers to anon;

-- With RLS on and no select/update/delete policy, those commands see or touch no rows even if a grant
-- slips back in later; the revoke above makes them fail outright with 42501 today.
drop policy if exists "Anonymous visitors can subscribe" on public.newsletter_subscribers;
create policy "Anonymous visitors can subscribe"
  on public.newsletter_subscribers
  for insert
  to anon
  with check (char_length(email) <= 255 and position('@' in email) > 1);
