import { GeminiProvider } from './gemini.provider';
import { OllamaProvider } from './ollama.provider';
import { OpenAiProvider } from './openai.provider';
import type { GenAiProvider, GenAiProviderName, ProviderConfig } from './provider';

export * from './provider';
export { GeminiProvider, GEMINI_DEFAULT_BASE_URL, GEMINI_DEFAULT_MODEL } from './gemini.provider';
export { OllamaProvider, OLLAMA_DEFAULT_BASE_URL, OLLAMA_DEFAULT_MODEL } from './ollama.provider';
export { OpenAiProvider, OPENAI_DEFAULT_BASE_URL, OPENAI_DEFAULT_MODEL } from './openai.provider';

export function createProvider(name: GenAiProviderName, cfg: ProviderConfig): GenAiProvider {
  switch (name) {
    case 'openai':
      return new OpenAiProvider(cfg);
    case 'gemini':
      return new GeminiProvider(cfg);
    case 'ollama':
      return new OllamaProvider(cfg);
  }
}
