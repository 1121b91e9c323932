// The places a derived amount keeps: the ledger's 1e-8 yuan. On its own so that what shows an
// amount without arithmetic (the status line's fast answer) takes the number without decimal.js.
export const DERIVED_PLACES = 8;
