// The boardgame.io peer's server: the bench's Basari on bgio-postgres, as a boardgame.io site would run it.
// Environment: PORT, and the database as PGDATABASE, PGUSER, PGHOST (a socket directory or a host), PGPORT.
'use strict';
const { Server, Origins } = require('boardgame.io/server');
const { PostgresStore } = require('bgio-postgres');
const { Basari } = require('./basari');

const db = new PostgresStore({
  database: process.env.PGDATABASE,
  username: process.env.PGUSER,
  password: process.env.PGPASSWORD || undefined,
  host: process.env.PGHOST,
  port: Number(process.env.PGPORT || 5432),
  logging: false,
});
const server = Server({ games: [Basari], db, origins: [Origins.LOCALHOST] });
server.run(Number(process.env.PORT), () => console.log('ready'));
