export { renderFirstMessage, renderSystemPrompt } from './system-prompt.js';
export type { PromptParts } from './system-prompt.js';
export { MAX_ITEM_ENUM, toolDefinitions } from './tool-defs.js';
export type { IdOffer, ToolOffer } from './tool-defs.js';
export { MAX_RESULT_CHARS, resultText } from './result-text.js';
