// The kinds of place an alert can go, one list for the command, the stored settings and delivery.

export type ChatKind = 'feishu' | 'dingtalk' | 'wecom' | 'discord' | 'telegram';
export const CHAT_KINDS: readonly ChatKind[] = ['feishu', 'dingtalk', 'wecom', 'discord', 'telegram'];

export type NotifyKind = 'webhook' | 'slack' | 'ntfy' | ChatKind | 'email';
export const NOTIFY_KINDS: readonly NotifyKind[] = ['webhook', 'slack', 'ntfy', ...CHAT_KINDS, 'email'];

/** The kinds a message reaches as text (a chat tool's bot, an e-mail), laid out at delivery (notify/chat.ts, notify/email.ts). */
export function isTextKind(kind: NotifyKind): kind is ChatKind | 'email' {
  return kind === 'email' || (CHAT_KINDS as readonly string[]).includes(kind);
}

/** The kinds whose destination holds a secret beside its URL (a bot's signing secret, a mail password), read from stdin's second line. */
export const KINDS_WITH_SECRET: readonly NotifyKind[] = ['feishu', 'dingtalk', 'email'];
