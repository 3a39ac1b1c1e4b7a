type HealthCheck = () => boolean | Promise<boolean>;

const checks = new Map<string, HealthCheck>();

/** Registers a check the health route runs on every probe (e.g. "the embedded store answers"); keep it cheap. */
export function registerHealthCheck(name: string, check: HealthCheck) {
  checks.set(name, check);
}

/** Runs every registered check; the names of the failing ones, empty when healthy. */
export async function failingHealthChecks(): Promise<string[]> {
  const failing: string[] = [];
  for (const [name, check] of checks) {
    try {
      if (!(await check())) failing.push(name);
    } catch {
      failing.push(name);
    }
  }
  return failing;
}
