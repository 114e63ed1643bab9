/**
 * The rooms of src/ and the direction imports may take, checked by dependency-cruiser in `npm run
 * lint` (and so in CI). docs/reference/architecture.md draws the same house; the direction is the
 * data's: the API's answers come in at the bottom, the shells (CLI, daemon, studio, MCP server,
 * status page) sit on top, and a room imports only from its own floor or below. Each rule's comment
 * is the message lint prints when the rule is broken.
 *
 * An exception is a `pathNot` on one rule with a comment saying why; there are none.
 */

/** The root files (log, clock, secrets, printable, write-atomically, version): utilities at the bottom. */
const BASE = '[^/]+\\.ts$';

/**
 * Floors, lowest first. `rooms` are folders of src/ (BASE: the files at its root). A room imports
 * from its own floor and every floor below, except the rooms of ONLY, which import less; the sandbox
 * is on no floor, and only the demo and the CLI import it.
 */
const FLOORS = [
  {
    name: 'leaves',
    rooms: ['BASE', 'errors', 'config'],
    why: 'the utilities, the errors and the config (its schema and the words the config file is written in: section names, locales, paper sizes, cron expressions, comparison phrases, alertable metrics) sit under everything',
  },
  {
    name: 'inputs',
    rooms: ['api', 'schedule', 'locale'],
    why: 'the API client and its catalog, the schedule’s calendar, the catalogs of words: read by everything above, reading no store',
  },
  {
    name: 'storage',
    rooms: ['store', 'queue'],
    why: 'the store keeps what the API said, the queue leases rows of any table; they call no API and send nothing',
  },
  {
    name: 'outbox',
    rooms: ['outbox'],
    why: 'the outbox (the deliveries table: its rows, ids, envelope, claim scope, enqueue, the claimed row’s states, heartbeat and recorded answers) is built on the store and the generic lease',
  },
  {
    name: 'sync',
    rooms: ['sync'],
    why: 'sync fills the store from the API; what follows a pass is wired above it',
  },
  {
    name: 'insight',
    rooms: ['insight'],
    why: 'insight reads the store and judges changes; it renders nothing',
  },
  {
    name: 'products',
    rooms: ['report', 'alerts', 'export', 'notify'],
    why: 'reports, alerts, exports and incidents are made from the store and insight; none of them sends',
  },
  {
    name: 'delivery',
    rooms: ['delivery'],
    why: 'delivery composes what the products made into messages and sends them',
  },
  {
    name: 'status',
    rooms: ['status'],
    why: 'the status view (page, cluster, downloads, HTTP access) is the lowest shell: the daemon, the studio, the MCP server and the CLI show it',
  },
  {
    name: 'servers',
    rooms: ['daemon', 'studio', 'mcp'],
    why: 'the daemon, the studio and the MCP server are shells over the same runtime; none imports another',
  },
  { name: 'demo', rooms: ['demo'], why: 'the demo runs the whole pipeline against the sandbox' },
  { name: 'cli', rooms: ['cli'], why: 'the CLI is the entry point: nothing imports it' },
];

/**
 * Rooms that import less than their floor allows (`only`: the complete list, their own included).
 * The sandbox stands beside the shells: it plays the API, so it reads the API's catalog and schemas
 * (it answers exactly what the client validates) and nothing that holds or makes data; only the
 * demo and the CLI import it.
 */
const ONLY = {
  BASE: { only: ['BASE'], why: 'the root utilities are leaves: they import only each other' },
  errors: { only: ['errors'], why: 'errors/ is a leaf: every room may throw its errors' },
  config: {
    only: ['config', 'errors', 'BASE'],
    why: 'config/ is a leaf: the vocabulary it checks lives in it, and the rooms that use a word import it from config/',
  },
  queue: {
    only: ['queue', 'errors', 'BASE'],
    why: 'queue/ is the generic lease (claim, renew, release on any table) over its own port (lease-store.ts): it imports no store and no outbox, and the store never imports it',
  },
  outbox: {
    only: ['outbox', 'store', 'queue', 'config', 'errors', 'BASE'],
    why: 'outbox/ is the deliveries table and its state machine: it reads the store and leases rows through the queue, and knows nothing of what is composed or where it is sent',
  },
  sandbox: {
    only: ['sandbox', 'api', 'config', 'errors', 'BASE'],
    why: 'the sandbox plays the API beside the shells: it reads the API catalog and schemas and nothing that holds or makes data',
  },
};

const floorOf = new Map(FLOORS.flatMap((floor, index) => floor.rooms.map((room) => [room, index])));
const pathOf = (room) => (room === 'BASE' ? `^src/${BASE}` : `^src/${room}/`);
const label = (room) => (room === 'BASE' ? 'the root utilities' : `${room}/`);

function allowedFor(room) {
  if (ONLY[room]) return ONLY[room].only;
  const floor = floorOf.get(room);
  const below = FLOORS.slice(0, floor + 1).flatMap((f) => f.rooms);
  // Only the shells that run the sandbox import it.
  return room === 'demo' || room === 'cli' ? [...below, 'sandbox'] : below;
}

const layering = [...floorOf.keys(), 'sandbox'].map((room) => {
  const allowed = [...new Set(allowedFor(room))];
  const floor = FLOORS[floorOf.get(room)];
  const why = ONLY[room]?.why ?? floor.why;
  return {
    name: `${room === 'BASE' ? 'root-utilities' : room}-imports-down`,
    severity: 'error',
    comment: `${label(room)} imports only from ${allowed.map(label).join(', ')}: ${why}. Move the code to the room it belongs to instead of importing up (docs/reference/architecture.md).`,
    from: { path: pathOf(room) },
    to: {
      path: '^src/',
      pathNot: allowed.map(pathOf),
    },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layering,
    {
      name: 'store-not-to-queue',
      severity: 'error',
      comment:
        'store/ does not import queue/: a table whose rows are leased keeps its lease use above both (outbox/ for deliveries, daemon/slot-lease.ts for job slots, sync/account-lease-rows.ts for account leases).',
      from: { path: '^src/store/' },
      to: { path: '^src/queue/' },
    },
    {
      name: 'outbox-importers',
      severity: 'error',
      comment:
        'Only the rooms that queue, send or show deliveries import outbox/ (alerts, notify, delivery, status and the shells); a product or the sync that needs a delivery asks one of them.',
      from: {
        path: '^src/',
        pathNot: '^src/(outbox|alerts|notify|delivery|status|daemon|studio|mcp|demo|cli)/',
      },
      to: { path: '^src/outbox/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Import circle: two modules that need each other are one concept split in two, or a third one missing. Move what both need into a module of its own (a type included: type imports count).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'This import resolves to no file: a moved module left an import behind.',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    // Type-only imports are dependencies too: a type from a room above ties the two rooms together.
    tsPreCompilationDeps: true,
    // `./x.js` in an import resolves to `./x.ts`, as TypeScript's NodeNext resolution does.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
