// Which currency codes tally shows amounts in beside the yuan: ISO 4217 codes Intl knows.

/** A currency code Intl knows (ISO 4217, upper case); undefined for anything else. */
export function currencyCode(text: string): string | undefined {
  const code = text.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code)) return undefined;
  try {
    const known = (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('currency');
    if (known && !known.includes(code)) return undefined;
    new Intl.NumberFormat('en', { style: 'currency', currency: code });
    return code;
  } catch {
    return undefined;
  }
}
