import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, sourceTree } from './importGraph';


describe('import cycles', () => {
  it('src/ has none, type-only imports included', () => {
    expect(importCycles(importGraph(join(__dirname, '..', 'src')))).toEqual([]);
  });

  it('finds a cycle made of a type-only import, a re-export and an import type', () => {
    const root = sourceTree({
      'a/protocol.ts': "import type { Request } from './request';\nexport type Message = Request | null;\n",
      'a/request.ts': "export { helper } from '../b/helper';\nexport type Request = { id: number };\n",
      'b/helper.ts': "export const helper = (m: import('../a/protocol').Message) => m;\n",
      'b/leaf.ts': "import { helper } from './helper';\nexport const leaf = helper;\n",
    });
    expect(importCycles(importGraph(root))).toEqual([['a/protocol.ts', 'a/request.ts', 'b/helper.ts']]);
  });

  it('resolves extensionless, index and query-suffixed imports, and leaves packages out', () => {
    const root = sourceTree({
      'x.ts': "import y from './y';\nimport z from './z';\nimport raw from './w.txt?raw';\nimport tf from '@tensorflow/tfjs-core';\n",
      'y.tsx': 'export default 1;\n',
      'z/index.ts': "import x from '../x';\nexport default x;\n",
      'w.txt': '',
    });
    expect(importGraph(root).get('x.ts')).toEqual(['w.txt', 'y.tsx', 'z/index.ts']);
    expect(importCycles(importGraph(root))).toEqual([['x.ts', 'z/index.ts']]);
  });
});
