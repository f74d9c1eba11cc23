/** vaultkeeper as a library: the same API the CLI, the MCP server and the daemon use. */
export { openVault, Vault } from './vault/vault.js';
export { initVault } from './vault/init.js';
export { locateVault } from './vault/locate.js';
export { loadConfig, type Config } from './core/config.js';
export { VaultkeeperError, UsageError } from './core/errors.js';
export { parseLog, CATEGORIES, type Fact, type FactInput, type ParsedLog } from './logs/factlog.js';
export { runDoctor, type DoctorReport, type Problem } from './doctor/doctor.js';
