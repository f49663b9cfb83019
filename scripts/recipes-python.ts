import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const SYSTEM_PYTHON = '/usr/bin/python3';
const importsCryptography = (python: string) => spawnSync(python, ['-c', 'import cryptography'], { stdio: 'ignore' }).status === 0;

/**
 * The python the recipes run with: RECIPES_PYTHON, else the first of python3 on the PATH and
 * Debian's /usr/bin/python3 that imports cryptography. Else Debian's when it exists (so that
 * apt-get's python3-cryptography serves it: a pyenv or venv python3 first on the PATH would
 * otherwise shadow the fix), else python3.
 */
export function recipesPython(): string {
  if (process.env.RECIPES_PYTHON) return process.env.RECIPES_PYTHON;
  return ['python3', SYSTEM_PYTHON].find(importsCryptography) ?? (existsSync(SYSTEM_PYTHON) ? SYSTEM_PYTHON : 'python3');
}
