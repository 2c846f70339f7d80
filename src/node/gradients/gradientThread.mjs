// A gradient thread's entry (gradientThreads.ts): Node's worker threads do not inherit the tsx
// loader that `node --import tsx` gives the main thread, so the thread registers it before it loads
// its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./gradientThreadMain.ts');
