/** The Hugging Face model an export starts from unless the user names another: the smallest the issue names. */
export const DEFAULT_START_MODEL = 'Qwen/Qwen2.5-0.5B';
