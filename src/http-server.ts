/**
 * node:http's `createServer`, for the daemon's, the sandbox's, the studio's and the MCP server's
 * listeners. Not imported as an ES module: Node's ES module view of node:http reads every export
 * once, and three of them (WebSocket, CloseEvent, MessageEvent) are getters that load Node's own
 * bundled undici, about 60 ms of CPU in every process that starts a server and uses none of them.
 */
export const { createServer } = process.getBuiltinModule('node:http');
