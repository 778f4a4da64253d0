export type { ContentPart, Message, ToolDefinition, Usage } from './message.js';
