/** Placeholder entry: the lab UI replaces this. */
import { createRoot } from 'react-dom/client';

const root = document.getElementById('root');
if (root) createRoot(root).render(<h1>TIR Lab</h1>);
