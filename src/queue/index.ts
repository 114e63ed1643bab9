/**
 * The leased job queue's pieces: the holder (who holds a lease, whether it is gone), the heartbeat,
 * the fencing token. Workers import them from here; the repositories of leased tables take their
 * claims, renewals and releases from leased-rows.ts.
 */
export { type Fence, staleWrite } from './fence.js';
export { holderName, isHolderGone, isProcessGone, localHost, parseHolder, startTicks } from './holder.js';
export { type Heartbeat, type HeartbeatOptions, newToken, startHeartbeat } from './lease.js';
