// JavaScript read as tokens (acorn's tokenizer), not as an AST: enough to tell a name used in code
// from the same word in a comment or a string, and cheap on megabytes of engine code. Used by the
// entry API detection (./entry-api.ts) and the networks' checks of scripts (./networks/).
import { tokenizer, tokTypes, type TokenType } from 'acorn';

export { tokTypes };

/** A token's kind and its value (a name's name, a string's contents); acorn's typings omit the value. */
export interface Token {
  type: TokenType;
  value: string;
}

/** The tokens of a script, as far as it can be read (a syntax error ends the list, not the caller's work). */
export function tokensOf(text: string, module: boolean): Token[] {
  const tokens: Token[] = [];
  try {
    for (const token of tokenizer(text, { ecmaVersion: 'latest', sourceType: module ? 'module' : 'script', allowHashBang: true })) {
      tokens.push({ type: token.type, value: String((token as { value?: unknown }).value ?? '') });
    }
  } catch {
    // keep what was read before the error
  }
  return tokens;
}

export const isName = (token: Token | undefined, name?: string) => token?.type === tokTypes.name && (name === undefined || token.value === name);
export const isDot = (token: Token | undefined) => token?.type === tokTypes.dot || token?.type === tokTypes.questionDot;
