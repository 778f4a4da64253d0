/**
 * The worked example's four plans (examples/task-manager/reference/plans/),
 * read from their frontmatter: which wave, which files of the reference app
 * each writes, and its commit summary. The scripts are generated from these
 * and from the app source, so they cannot drift from either.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { APP_NAME, PLANS_DIR, appFiles } from './example-paths.js';

export interface Plan {
  /** `db_schema`, `api_routes`, `react_ui`, `integration`. */
  readonly name: string;
  readonly wave: number;
  readonly summary: string;
  /** App-relative paths, as listed. */
  readonly files: readonly string[];
  /** What its commit stages (default: its files). */
  readonly commitPaths: readonly string[];
  /** The plan document's text (what the orchestrator writes). */
  readonly text: string;
  /** Where the orchestrator writes it, project-relative. */
  readonly path: string;
}

export const PLAN_NAMES = ['db_schema', 'api_routes', 'react_ui', 'integration'] as const;

export function readPlans(): Plan[] {
  return PLAN_NAMES.map((name) =>
    readPlan(
      name,
      join(PLANS_DIR, `plan_${name}.md`),
      `.ai/plans/${APP_NAME}/phase_1/plan_${name}.md`,
    ),
  );
}

/** One plan document: `file` in the repository, written by the orchestrator at `path`. */
export function readPlan(name: string, file: string, path: string): Plan {
  const text = readFileSync(file, 'utf8');
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (front === null) throw new Error(`${file} has no frontmatter`);
  const data = parse(front[1] as string) as {
    wave: number;
    summary: string;
    files: string[];
    commit_paths?: string[];
  };
  return {
    name,
    wave: data.wave,
    summary: data.summary,
    files: data.files,
    commitPaths: data.commit_paths ?? data.files,
    text,
    path,
  };
}

/** The app files no plan writes: the scaffold's. Throws when a plan lists a file the app lacks. */
export function scaffoldFiles(plans: readonly Plan[]): string[] {
  const all = appFiles();
  const planned = new Set(plans.flatMap((p) => p.files));
  for (const file of planned)
    if (!all.includes(file)) throw new Error(`a plan lists ${file}, which the reference app lacks`);
  return all.filter((f) => !planned.has(f));
}
