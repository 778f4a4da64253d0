export { startScriptedProvider } from './server.js';
export type { CapturedRequest, ScriptedProvider, ScriptedProviderOptions } from './server.js';
export { conversationKey, directiveNameOf } from './script.js';
export type {
  ScriptEntry,
  ScriptFault,
  ScriptMatch,
  ScriptReply,
  ScriptToolCall,
  ScriptTurn,
  ScriptUsage,
} from './script.js';
