/**
 * The leased job queue's pieces: the holder (who holds a lease, whether it is gone), the heartbeat,
 * the fencing token. Repositories and workers import them from here.
 */
export { type Fence, fenced, staleWrite } from './fence.js';
export { holderName, isHolderGone, isProcessGone, localHost, parseHolder, startTicks } from './holder.js';
export { type Heartbeat, type HeartbeatOptions, newToken, startHeartbeat } from './lease.js';
