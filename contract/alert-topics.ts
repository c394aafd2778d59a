// What a notification channel can choose to receive, in the service's words: the rule
// (server/domain/notifications/events.ts) and the channel form (renderer/) read it here. Plain
// TypeScript that imports nothing.

/** Each event a channel can receive, with what the form says of it; none chosen: every one. */
export const ALERT_TOPICS = {
  down: 'A monitor goes down',
  degraded: 'A monitor is degraded',
  up: 'A monitor is back up',
  certificate: 'A certificate nears expiry or fails',
  heartbeat_missed: 'A heartbeat does not come',
  tool_drift: 'An MCP server changes its tools',
} as const;

export type AlertTopic = keyof typeof ALERT_TOPICS;

export const alertTopics = Object.keys(ALERT_TOPICS) as AlertTopic[];
