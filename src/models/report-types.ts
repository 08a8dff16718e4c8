// The reasons a message can be reported for (POST /messages/{id}/report, register's server_report_message_types).
export const REPORT_MESSAGE_TYPES: readonly { key: string; name: string }[] = [
  { key: 'spam', name: 'Spam' },
  { key: 'harassment', name: 'Harassment' },
  { key: 'inappropriate', name: 'Inappropriate content' },
  { key: 'norms', name: 'Violates community norms' },
  { key: 'other', name: 'Other reason' },
];

/** The longest description a report may carry (code points). */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
