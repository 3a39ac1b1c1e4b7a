// The stand-in as a project whose database and server share a signing key: the signed functions (confirm, suppress)
// answer only calls signed with `signingKey`, and the owner's commands use `serviceRoleKey`.
import { createConfirmRpcs } from "./confirm";
import { startStubSupabase, type StubSupabase } from "./stub";

export const startSignedStub = (signingKey: string, serviceRoleKey = "stub-service-role-key"): Promise<StubSupabase> =>
  startStubSupabase({ serviceRoleKey, signingKey, confirmations: (rows) => createConfirmRpcs(signingKey, rows) });
