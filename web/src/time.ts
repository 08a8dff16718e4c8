// Dates and times as the user's settings ask (24-hour clock or not).
export function timeOf(ts: number, twentyFour: boolean): string {
  return new Date(ts * 1000).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit', hour12: !twentyFour });
}

export function dayOf(ts: number): string {
  return new Date(ts * 1000).toLocaleDateString(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
}
