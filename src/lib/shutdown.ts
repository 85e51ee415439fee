// SIGTERM/SIGINT end a process cleanly: `close` lets in-flight work finish, then exit 0 (1 if it
// failed). A shutdown still running after SHUTDOWN_TIMEOUT_SECONDS — a request or an export that
// never ends — is cut short with exit code 1, before an orchestrator's SIGKILL would leave no trace.
import type { Logger } from 'pino';

export function exitOnSignals(log: Logger, timeoutSeconds: number, close: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    log.info({ signal, timeoutSeconds }, 'shutting down');
    setTimeout(() => {
      log.error({ signal, timeoutSeconds }, 'shutdown timed out; exiting with work unfinished');
      process.exit(1);
    }, timeoutSeconds * 1000).unref();
    try {
      await close();
      log.info('shut down');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));
}
