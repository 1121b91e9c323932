// What a profile may be called: letters, digits, ".", "_", "-" and "@", at most 64, not starting
// with "-". One rule for every reader of a name (flags, config.json, .tally.json, the fast paths).
export const PROFILE_NAME = /^[\w.@][\w.@-]{0,63}$/;
