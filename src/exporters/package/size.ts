// The size limit, checked on the final bytes, and the message that says what is big.
import type { Network, NetworkRules } from '../rules.js';
import { type AssetReport, ExportFailure } from '../types.js';

export function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toFixed(2)} MB`;
  if (bytes >= 1_000) return `${(bytes / 1_000).toFixed(1)} kB`;
  return `${bytes} B`;
}

export function checkSize(size: number, rules: NetworkRules, network: Network, assets: AssetReport[]): void {
  if (size <= rules.sizeLimitBytes) return;
  const largest = [...assets]
    .sort((a, b) => b.bytesInArtifact - a.bytesInArtifact)
    .slice(0, 3)
    .map((a) => `${a.fileName} (${formatBytes(a.bytesInArtifact)})`);
  throw new ExportFailure(
    `The ${network} export is ${formatBytes(size)} (${size} bytes), over the network's limit of ` +
      `${formatBytes(rules.sizeLimitBytes)} (${rules.sizeLimitBytes} bytes). Largest assets: ${largest.join(', ')}.`,
  );
}
