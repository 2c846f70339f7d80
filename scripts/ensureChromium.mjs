/**
 * Before the e2e suite: Debian's Chromium must be at CHROMIUM_PATH (default /usr/bin/chromium).
 * Missing and running as root (as CI does), it is installed from Debian's packages; otherwise this
 * stops at once with the one command to run, instead of 80 "executable doesn't exist" failures.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const INSTALL = 'apt-get update && apt-get install -y --no-install-recommends chromium';

if (!existsSync(path)) {
  if (process.env.CHROMIUM_PATH !== undefined) {
    console.error(`e2e: CHROMIUM_PATH is ${path}, which does not exist`);
    process.exit(1);
  }
  if (process.getuid?.() !== 0) {
    console.error(`e2e: Debian's Chromium is missing at ${path}. Install it (as root) with:\n  ${INSTALL}`);
    process.exit(1);
  }
  console.error(`e2e: Debian's Chromium is missing at ${path}; installing it: ${INSTALL}`);
  const result = spawnSync('sh', ['-c', INSTALL], { stdio: 'inherit' });
  if (result.status !== 0 || !existsSync(path)) {
    console.error(`e2e: the install failed (exit ${result.status}); run as root:\n  ${INSTALL}`);
    process.exit(1);
  }
}
