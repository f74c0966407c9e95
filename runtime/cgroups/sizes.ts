const units: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** Bytes of a systemd-style size ("4G", "512M", "1048576"), as the schema admits them. */
export function parseSize(size: string): number {
  const unit = size.at(-1) ?? "";
  return unit in units ? Number(size.slice(0, -1)) * (units[unit] ?? 1) : Number(size);
}

/** A byte count in the largest unit that divides it, as the schema writes sizes ("96M", "1536K"). */
export function formatSize(bytes: number): string {
  for (const unit of ["T", "G", "M", "K"]) {
    const size = units[unit] ?? 1;
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}
