import type { CodeTable } from './code-table.js';

/** System tools (rye/file-system/*, rye/core/git): codes reported in a tool's output. */
export const SYSTEM_TOOL_CODES = {
  // The project file-system tools (issue 17). The tools report these in their
  // output's `code`; the call itself fails with EXECUTE_TOOL_FAILED.
  FS_PATH_INVALID: {
    class: 'usage',
    hint: 'File-system tools take project-relative paths: no absolute path, no .. segment, no NUL, no backslash; one fs_write call names each file once, and either path and content or files.',
  },
  FS_PATH_ESCAPE: {
    class: 'integrity',
    hint: 'The path resolves (through a symbolic link) outside the project folder; nothing was read or written.',
  },
  FS_PATH_LINK: {
    class: 'integrity',
    hint: 'A write never passes through a symbolic link: a component of the path is a link (details.link); nothing was written.',
  },
  FS_PATH_PROTECTED: {
    class: 'integrity',
    hint: 'Inside .ai/ only .ai/plans/ is writable, and .git folders are never written; nothing was written.',
  },
  FS_PROJECT_MISSING: {
    class: 'failure',
    hint: 'The tool was started without a readable project folder (--project-path).',
  },
  FS_NOT_FOUND: {
    class: 'failure',
    hint: 'The file or folder does not exist in the project; list the folder with rye/file-system/fs_list.',
  },
  FS_NOT_A_FILE: {
    class: 'failure',
    hint: 'The path names a folder or something else that is not a regular file.',
  },
  FS_NOT_A_FOLDER: {
    class: 'failure',
    hint: 'fs_list lists folders, and a write needs folders above its file: the path names a file where a folder must be.',
  },
  FS_EXISTS: {
    class: 'failure',
    hint: 'The file exists and the write asked for overwrite: false.',
  },
  FS_TOO_LARGE: {
    class: 'failure',
    hint: 'fs_read returns at most 1 MiB; fs_write accepts at most 96 KiB of content and 64 files per call (tool parameters travel as one command-line argument).',
  },
  FS_NOT_TEXT: {
    class: 'failure',
    hint: 'fs_read returns UTF-8 text only; the file holds other bytes.',
  },
  FS_IO_FAILED: {
    class: 'failure',
    hint: 'The operating system refused the read or write (details.cause: its error code).',
  },
  // The git tool (issue 17), reporting as the file-system tools do.
  GIT_PARAMS_INVALID: {
    class: 'usage',
    hint: 'rye/core/git takes a project-relative repo, repo-relative paths, a date as YYYY-MM-DDTHH:MM:SSZ, and either message or app, plan and summary.',
  },
  GIT_REPO_MISSING: {
    class: 'failure',
    hint: 'The repository folder does not exist in the project (commit creates the repository, not its folder).',
  },
  GIT_REPO_UNSAFE: {
    class: 'integrity',
    hint: 'The repository folder leads outside the project, or its .git is a file or link pointing elsewhere; git was not run on it.',
  },
  GIT_CONFIG_UNSAFE: {
    class: 'integrity',
    hint: "The repository's own config sets keys that make git run programs (hooks path, fsmonitor, filters, textconv, includes…; details.keys); nothing was staged or committed. Remove them with git config --unset.",
  },
  GIT_NOTHING_TO_COMMIT: {
    class: 'failure',
    hint: 'The paths given have no change since the last commit.',
  },
  GIT_FAILED: {
    class: 'failure',
    hint: 'git could not be run or reported an error (its message is included); check that git is installed.',
  },
} as const satisfies CodeTable;
