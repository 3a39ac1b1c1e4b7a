// The stand-in as a project whose database and server share a signing key: the owner stored `signingKey` as the
// confirm_signing_key, so sign-ups wait for a confirmation and the server's signed calls are accepted; the owner's
// commands use `serviceRoleKey`.
import { startStubSupabase, STUB_SERVICE_ROLE_KEY, type StubSupabase } from "./stub";

export const startSignedStub = (signingKey: string, serviceRoleKey = STUB_SERVICE_ROLE_KEY): Promise<StubSupabase> =>
  startStubSupabase({ serviceRoleKey, signingKey });
