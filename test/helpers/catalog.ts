import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { readSigner, signText, type Signer } from '../../src/integrity/index.js';
import { keyDir, type ItemType } from '../../src/items/index.js';
import { closeCatalogDbs, type CatalogScope } from '../../src/catalog/index.js';
import { makeExecProject, type ExecProject } from './exec-project.js';

afterEach(() => {
  // Each test's temp folders are removed after it: drop the open index handles first.
  closeCatalogDbs();
});

const FOLDER: Record<ItemType, string> = {
  directive: 'directives',
  tool: 'tools',
  knowledge: 'knowledge',
};

/** A temp project, user space with a trusted key, and a copy of the signed system space. */
export interface CatalogProject extends ExecProject {
  readonly scope: CatalogScope;
  readonly signer: Signer;
  /** `.ai/<type folder>/<id><ext>` under a space's base (default: the project). */
  itemPath(type: ItemType, id: string, ext: string, base?: string): string;
  /** Write a knowledge entry; `signed` (default true) signs it with the user's key. */
  knowledge(
    id: string,
    options?: { title?: string; body?: string; base?: string; signed?: boolean; signer?: Signer },
  ): string;
  /** The search index folder under the user's cache. */
  readonly indexDir: string;
}

export async function makeCatalogProject(
  options: { sandbox?: 'off' } = {},
): Promise<CatalogProject> {
  const p = await makeExecProject(options);
  const signer = await readSigner(keyDir(p.spaces));
  const itemPath = (type: ItemType, id: string, ext: string, base = p.project): string =>
    join(base, '.ai', FOLDER[type], `${id}${ext}`);
  return {
    ...p,
    scope: { project: p.project, env: p.env },
    signer,
    indexDir: join(p.user, '.ai', 'cache', 'search'),
    itemPath,
    knowledge(id, options = {}) {
      const name = id.slice(id.lastIndexOf('/') + 1);
      const category = id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '';
      const text = knowledgeText(name, category, options.title ?? `${name} title`, options.body);
      const path = itemPath('knowledge', id, '.md', options.base);
      const signed =
        options.signed === false
          ? text
          : signText(text, {
              itemType: 'knowledge',
              extension: '.md',
              signer: options.signer ?? signer,
            }).text;
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, signed);
      return path;
    },
  };
}

/** A knowledge entry's text: YAML front matter naming it, then the body. */
export function knowledgeText(
  name: string,
  category: string,
  title: string,
  body = 'Body.',
): string {
  const cat = category === '' ? '' : `category: ${category}\n`;
  return `\`\`\`yaml\nname: ${name}\ntitle: ${title}\nentry_type: reference\nversion: "1.0.0"\n${cat}\`\`\`\n\n${body}\n`;
}

/** Replace text in a file in place (keeps the signature line, so a signed file becomes tampered). */
export function editFile(path: string, from: string, to: string): void {
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${path} has no "${from}"`);
  writeFileSync(path, text.replace(from, to));
}
