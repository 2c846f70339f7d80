/** CLI processes a test starts as leaders of their own process groups, as a terminal's jobs are. */

/** SIGKILL to each group: at the end, for a run a failed assertion left going. */
export function killGroups(groups: readonly number[]): void {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already ended, as it should have.
    }
  }
}
