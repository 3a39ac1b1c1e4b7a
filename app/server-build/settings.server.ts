// The settings as the server and the owner's tools take them: the env schema parses types and formats, and each
// feature's own rule over its variables runs here, where the features meet.
import { latestPostSettingProblems } from "~/latest-post/settings.server";
import { dkimProblem } from "~/mail/dkim.server";
import { webhookSettingProblems } from "~/newsletter/webhooks/settings.server";
import { type Env, parseEnv, type ParsedEnv, type SettingsCheck, settingsError } from "~/utils/env.server";

const dkimSettingProblems: SettingsCheck = (settings) => {
  const problem = dkimProblem(settings);
  return problem ? [problem] : [];
};

/** Every feature's check over its own variables. */
export const FEATURE_CHECKS: readonly SettingsCheck[] = [
  dkimSettingProblems,
  webhookSettingProblems,
  latestPostSettingProblems,
];

/** An environment parsed and checked as start-up does: an EnvError with one line per bad variable. */
export const parseSettings = (source: Record<string, string | undefined>): Env => parseEnv(source, FEATURE_CHECKS);

/** Throws the EnvError start-up stops on when a feature refuses one of the parsed settings. */
export function checkFeatureSettings(settings: ParsedEnv): void {
  const problems = FEATURE_CHECKS.flatMap((check) => check(settings));
  if (problems.length > 0) throw settingsError(problems);
}
