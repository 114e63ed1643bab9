import { startPostgresCluster } from '/work/wt/seam/test/helpers/postgres-cluster.js';
const c = await startPostgresCluster();
console.log(c.adminUrl);
process.on('SIGTERM', () => { c.stop(); process.exit(0); });
setInterval(() => {}, 1000);
