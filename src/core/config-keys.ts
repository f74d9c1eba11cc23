/** Where the config is found: its file, and the environment variables that override its keys (DESIGN §10). Apart from config.ts so naming them loads no validator. */

export const CONFIG_FILE = '.vaultkeeper/config.yaml';

export const ENV_OVERRIDES: Readonly<Record<string, readonly string[]>> = {
  VAULTKEEPER_TIMEZONE: ['timezone'],
  VAULTKEEPER_LLM_BASE_URL: ['llm', 'base_url'],
  VAULTKEEPER_LLM_MODEL: ['llm', 'model'],
  VAULTKEEPER_LLM_API_KEY_ENV: ['llm', 'api_key_env'],
  VAULTKEEPER_EMBEDDER: ['index', 'embedder'],
  VAULTKEEPER_INDEX_URI: ['index', 'uri'],
};
