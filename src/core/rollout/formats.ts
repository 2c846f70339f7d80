/**
 * The two tool-call formats: ZeroTIR's markdown fences and ReTool's tags. The policy writes
 * codeOpen, the code, then codeClose; the environment appends outputOpen, the output, outputClose.
 * Their names are the experiment's (the config chooses one).
 */
import type { ToolFormatName } from '../experiment';

export type { ToolFormatName };

export interface ToolFormat {
  name: ToolFormatName;
  codeOpen: string;
  codeClose: string;
  outputOpen: string;
  outputClose: string;
}

export const TOOL_FORMATS: Record<ToolFormatName, ToolFormat> = {
  zerotir: { name: 'zerotir', codeOpen: '```python', codeClose: '```', outputOpen: '\n```output\n', outputClose: '\n```\n' },
  retool: { name: 'retool', codeOpen: '<code>', codeClose: '</code>', outputOpen: '\n<interpreter>\n', outputClose: '\n</interpreter>\n' },
};
