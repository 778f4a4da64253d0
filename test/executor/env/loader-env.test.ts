import { describe, expect, it } from 'vitest';
import {
  LOADER_ENV_NAMES,
  isLoaderEnvName,
  loaderEnvNamesIn,
} from '../../../src/executor/env/loader-env.js';

describe('isLoaderEnvName()', () => {
  it('denies the names interpreters and loaders read at start-up, in any case', () => {
    for (const name of [
      'PATH',
      'NODE_OPTIONS',
      'NODE_PATH',
      'NODE_EXTRA_CA_CERTS',
      'PYTHONPATH',
      'PYTHONHOME',
      'PYTHONSTARTUP',
      'LD_PRELOAD',
      'LD_LIBRARY_PATH',
      'DYLD_INSERT_LIBRARIES',
      'RYE_PYTHON',
      'RYE_NODE',
      'RYE_SHELL',
      'TSX_TSCONFIG_PATH',
      'BASH_ENV',
      'ENV',
      'SHELLOPTS',
      'BASHOPTS',
      'IFS',
      'PS4',
      'PERL5OPT',
      'PERL5LIB',
      'RUBYOPT',
      'GCONV_PATH',
      'npm_config_script_shell',
      'NPM_CONFIG_PREFIX',
      'HOME',
      'ESBUILD_BINARY_PATH',
      'PYENV_ROOT',
      'https_proxy',
      'SSL_CERT_FILE',
      'GIT_SSH_COMMAND',
      'OPENSSL_CONF',
      'path',
    ]) {
      expect(isLoaderEnvName(name), name).toBe(true);
    }
  });

  it('lets ordinary application names through', () => {
    for (const name of [
      'API_KEY',
      'BASE_URL',
      'DATABASE_URL',
      'GREETING',
      'LOG_LEVEL',
      'PATHS_FILE',
    ]) {
      expect(isLoaderEnvName(name), name).toBe(false);
    }
  });

  it('keeps the whole deny-list in one upper-case constant', () => {
    for (const entry of [...LOADER_ENV_NAMES.exact, ...LOADER_ENV_NAMES.prefixes])
      expect(entry).toBe(entry.toUpperCase());
  });
});

describe('loaderEnvNamesIn()', () => {
  it('returns the denied names, sorted and once each', () => {
    expect(loaderEnvNamesIn(['B', 'PATH', 'NODE_OPTIONS', 'PATH', 'A'])).toEqual([
      'NODE_OPTIONS',
      'PATH',
    ]);
  });
});
