import { GENAI_LIMITS, parseSpintax, SpintaxError, variablesOf, wordListsOf, type GenAiConversationContext } from '@switchboard/contracts';
import type { ChatMessage } from './providers';

/**
 * The prompts (docs/decisions/0041-generative-ai.md). Each carries only what its call needs: the text to rewrite, the
 * idea, or the goal and the last messages' text (never a name, a phone number, the account or the agent).
 */

const KEEP = 'Keep the language of the message, every {{variable}}, [[word list]], link and number exactly as written.';

export function rephrasePrompt(text: string, tone: string): ChatMessage[] {
  return [
    { role: 'system', content: `You rewrite a business text message in a ${tone} tone without changing what it says. ${KEEP} Answer with the rewritten message only.` },
    { role: 'user', content: text },
  ];
}

export function generatePrompt(idea: string, maxLength: number): ChatMessage[] {
  return [
    {
      role: 'system',
      content: `You write one business text message (SMS or chat) from the idea you are given, in the language of the idea, at most ${maxLength} characters long. Answer with the message only.`,
    },
    { role: 'user', content: idea },
  ];
}

export function respondPrompt(ctx: GenAiConversationContext): ChatMessage[] {
  const transcript = ctx.messages.map((m) => `${m.from === 'contact' ? 'Customer' : 'Agent'}: ${m.text}`).join('\n');
  return [
    {
      role: 'system',
      content:
        `You are a customer-service agent replying in a chat. Your goal in this conversation: ${ctx.goalName}. ${ctx.goalText}\n` +
        'Write the agent\'s next message toward that goal: short, polite, in the customer\'s language. Answer with the message only.',
    },
    { role: 'user', content: transcript ? `The conversation so far:\n${transcript}\n\nWrite the agent's next message.` : 'The customer has not written yet. Write the agent\'s first message.' },
  ];
}

export function spintaxPrompt(text: string): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You turn a business text message into spintax so every recipient can get a different wording with the same meaning. ' +
        'Syntax: {a|b|c} picks one alternative; groups may nest; {{name}} is a variable and [[name]] a word list: keep every one of them exactly, add none. ' +
        'Write a literal {, }, | as \\{, \\}, \\|. Answer with the spintax only.',
    },
    { role: 'user', content: text },
  ];
}

/** The model's answer without the wrapping models like to add: code fences, surrounding quotes, blank lines. */
export function cleanAnswer(text: string): string {
  let t = text.trim();
  const fence = /^```[\w-]*\n([\s\S]*?)\n?```$/.exec(t);
  if (fence) t = fence[1].trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith('«') && t.endsWith('»')))) t = t.slice(1, -1).trim();
  return t;
}

/** Cuts a text to `max` characters at a word boundary when there is one in the last fifth. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return (space > max * 0.8 ? cut.slice(0, space) : cut).trimEnd();
}

export type SpintaxCheck = { ok: true } | { ok: false; reason: string; position: number | null };

/**
 * The AI's spintax goes back only when the campaigns' parser reads it (libs/contracts/src/spintax.ts) and it names
 * no variable or word list the original did not: an invented `[[list]]` would fail at send time.
 */
export function checkAiSpintax(original: string, spintax: string): SpintaxCheck {
  let before: ReturnType<typeof parseSpintax>;
  let after: ReturnType<typeof parseSpintax>;
  try {
    after = parseSpintax(spintax);
  } catch (e) {
    if (e instanceof SpintaxError) return { ok: false, reason: e.message, position: e.position };
    throw e;
  }
  try {
    before = parseSpintax(original);
  } catch {
    before = [];
  }
  const known = new Set(variablesOf(before).map((v) => v.toLowerCase()));
  const lists = new Set(wordListsOf(before).map((v) => v.toLowerCase()));
  const newVar = variablesOf(after).find((v) => !known.has(v.toLowerCase()));
  if (newVar) return { ok: false, reason: `it adds the variable {{${newVar}}}`, position: null };
  const newList = wordListsOf(after).find((v) => !lists.has(v.toLowerCase()));
  if (newList) return { ok: false, reason: `it adds the word list [[${newList}]]`, position: null };
  if (spintax.length > GENAI_LIMITS.text * 4) return { ok: false, reason: 'it is too long', position: null };
  return { ok: true };
}
