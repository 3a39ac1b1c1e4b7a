import { type Env, EnvError } from "~/utils/env.server";

/**
 * The web server never holds the key that reads every address: a server started with it stops and says where the key
 * belongs. The update command, which loads the same build, does not call this.
 */
export function refuseServiceRoleKey(settings: Pick<Env, "SUPABASE_SERVICE_ROLE_KEY">) {
  if (settings.SUPABASE_SERVICE_ROLE_KEY) {
    throw new EnvError(
      "Invalid environment: SUPABASE_SERVICE_ROLE_KEY must not be given to the web server (it reads every address). " +
        "Give it to the update command only: SUPABASE_SERVICE_ROLE_KEY=… npm run newsletter -- send <name>",
    );
  }
}
