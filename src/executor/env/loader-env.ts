/**
 * Environment names that steer how a program starts: which interpreter or
 * binary runs, what it preloads or imports, where it looks for modules,
 * config files, certificates and proxies. The project `.env` is an
 * allow-list (only names a signed chain declares in `env_config.dotenv`);
 * this deny-list is defence in depth on top of it: such a name is refused in
 * a declaration and in a signed `.env`, whoever signed them.
 */

/**
 * The deny-list, matched case-insensitively (Windows names are, and proxies
 * and npm read lower-case spellings too). `exact` names and `prefixes`.
 */
export const LOADER_ENV_NAMES = {
  exact: [
    // Executable and library search, home-relative config and start-up files.
    'PATH',
    'HOME',
    'USERPROFILE',
    'APPDATA',
    'LOCALAPPDATA',
    'ZDOTDIR',
    'SHELL',
    'TMPDIR',
    // POSIX sh / bash start-up and parsing.
    'ENV',
    'BASH_ENV',
    'SHELLOPTS',
    'BASHOPTS',
    'IFS',
    'PS4',
    'CDPATH',
    'GLOBIGNORE',
    'PROMPT_COMMAND',
    // glibc: the variables it drops for setuid programs (module and data loading).
    'GCONV_PATH',
    'GETCONF_DIR',
    'GLIBC_TUNABLES',
    'HOSTALIASES',
    'LOCALDOMAIN',
    'LOCPATH',
    'NIS_PATH',
    'NLSPATH',
    'RESOLV_HOST_CONF',
    'RES_OPTIONS',
    'TZDIR',
    // Java launchers.
    'CLASSPATH',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'JDK_JAVA_OPTIONS',
    // TLS trust, proxies, key logs: where credentials go and who can read them.
    'SSL_CERT_FILE',
    'SSL_CERT_DIR',
    'SSLKEYLOGFILE',
    'REQUESTS_CA_BUNDLE',
    'CURL_CA_BUNDLE',
    'HTTP_PROXY',
    'HTTPS_PROXY',
    'ALL_PROXY',
    'NO_PROXY',
    'FTP_PROXY',
    // Programs other programs run on the user's behalf.
    'EDITOR',
    'VISUAL',
    'PAGER',
    'MANPAGER',
    'BROWSER',
    'LESSOPEN',
    'LESSCLOSE',
    'SSH_ASKPASS',
    'SUDO_ASKPASS',
  ],
  prefixes: [
    'RYE_',
    'LD_',
    'DYLD_',
    'MALLOC_',
    'BASH_',
    'NODE_',
    'NPM_CONFIG_',
    'COREPACK_',
    'YARN_',
    'PNPM_',
    'TSX_',
    'TS_NODE_',
    'ESBUILD_',
    'UV_',
    'PYTHON',
    'PIP_',
    'VIRTUAL_ENV',
    'CONDA',
    'PERL',
    'RUBY',
    'GEM_',
    'BUNDLE_',
    'OPENSSL_',
    'GIT_',
    'XDG_',
    // Version-manager shims (pyenv, nodenv, rbenv, asdf, nvm, volta, mise).
    'PYENV',
    'NODENV',
    'RBENV',
    'ASDF_',
    'NVM_',
    'VOLTA_',
    'MISE_',
  ],
} as const;

const EXACT: ReadonlySet<string> = new Set(LOADER_ENV_NAMES.exact);

/** True when `name` is on {@link LOADER_ENV_NAMES} (case-insensitive). Pure. */
export function isLoaderEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return EXACT.has(upper) || LOADER_ENV_NAMES.prefixes.some((prefix) => upper.startsWith(prefix));
}

/** The names in `names` that are on the deny-list, sorted. Pure. */
export function loaderEnvNamesIn(names: Iterable<string>): string[] {
  return [...new Set([...names].filter(isLoaderEnvName))].sort();
}
