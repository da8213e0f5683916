// Basari's core for boardgame.io, the bench's peer (docs/performance.md, "Peers"): the same 39 bazaar cards
// (domain/data/basari.json), three players, secret simultaneous picks of A, B or C, bids and accepts
// between two players who picked the same action, stages ending at 15 workers or an empty pile, majority
// scoring, three stages (setupData.stages; more for the latency-growth run). Undo is off.
'use strict';
const fs = require('fs');
const path = require('path');
const { ActivePlayers, INVALID_MOVE } = require('boardgame.io/core');

const DATA = JSON.parse(
  fs.readFileSync(path.join(__dirname, '..', '..', '..', 'domain', 'data', 'basari.json'), 'utf8'),
);
const COLOURS = DATA.colours_by_value; // highest value first
const ACTIONS = ['A', 'B', 'C'];

const count = (gems) => COLOURS.reduce((sum, c) => sum + gems[c], 0);
const empty = () => Object.fromEntries(COLOURS.map((c) => [c, 0]));

// A bid beats another with more gems, or as many and more of the higher colours (B-8).
function beats(bid, other) {
  if (count(bid) !== count(other)) return count(bid) > count(other);
  for (const c of COLOURS) if (bid[c] !== other[c]) return bid[c] > other[c];
  return false;
}

function owns(gems, bid) {
  return COLOURS.every((c) => Number.isInteger(bid[c]) && bid[c] >= 0 && bid[c] <= gems[c]);
}

// The first bidder: more red, then yellow, green, blue, points, workers, the eldest (B-8).
function firstBidder(G, a, b) {
  const pa = G.players[a];
  const pb = G.players[b];
  for (const c of COLOURS) if (pa.gems[c] !== pb.gems[c]) return pa.gems[c] > pb.gems[c] ? a : b;
  if (pa.points !== pb.points) return pa.points > pb.points ? a : b;
  if (pa.workers !== pb.workers) return pa.workers > pb.workers ? a : b;
  return Math.min(a, b);
}

function perform(G, seat, action) {
  const player = G.players[seat];
  if (action === 'A') {
    const card = G.pile.shift();
    if (card) player.workers += card.workers;
  } else if (action === 'B') {
    player.points += G.current[seat].points;
  } else {
    for (const c of COLOURS) {
      const take = Math.min(G.current[seat].gems[c], G.stock[c]);
      G.stock[c] -= take;
      player.gems[c] += take;
    }
  }
}

// Step III from the action ``from`` on: perform, or open a negotiation and stop until it is settled.
function resolve(G, random, from) {
  for (let i = from; i < ACTIONS.length; i += 1) {
    const action = ACTIONS[i];
    const choosers = G.picks.flatMap((pick, seat) => (pick === action ? [seat] : []));
    if (choosers.length === 1) perform(G, choosers[0], action);
    if (choosers.length === 2) {
      const first = firstBidder(G, choosers[0], choosers[1]);
      const other = choosers[0] === first ? choosers[1] : choosers[0];
      if (count(G.players[first].gems) === 0) {
        perform(G, other, action);
      } else {
        G.negotiation = { action, index: i, toMove: first, bids: { [first]: null, [other]: null } };
        return;
      }
    }
  }
  G.negotiation = null;
  endRound(G, random);
}

function endRound(G, random) {
  G.picks = G.players.map(() => null);
  if (G.players.some((p) => p.workers >= DATA.stage_end_workers) || G.pile.length < G.players.length) {
    scoreStage(G, random);
  }
  if (!G.over) deal(G);
}

function scoreStage(G, random) {
  for (const c of COLOURS) {
    const most = Math.max(...G.players.map((p) => p.gems[c]));
    if (most < 1) continue;
    const leaders = G.players.filter((p) => p.gems[c] === most);
    for (const p of leaders) {
      p.points += Math.floor(DATA.majority_points[c] / leaders.length);
      const back = leaders.length === 1 ? Math.ceil(most / 2) : Math.min(DATA.tie_return, p.gems[c]);
      p.gems[c] -= back;
      G.stock[c] += back;
    }
  }
  for (const p of G.players) {
    if (p.workers >= DATA.stage_end_workers) p.points += DATA.workers_bonus;
    p.workers = 0;
  }
  G.stage += 1;
  if (G.stage > G.stages) {
    G.over = true;
    return;
  }
  G.pile = random.Shuffle(DATA.bazaar_cards.slice());
}

function deal(G) {
  G.current = G.players.map(() => G.pile.shift());
  G.current.forEach((card, seat) => {
    G.players[seat].workers += card.workers;
  });
}

function pick({ G, playerID, random }, action) {
  const seat = Number(playerID);
  if (G.negotiation || G.picks[seat] !== null || !ACTIONS.includes(action)) return INVALID_MOVE;
  G.picks[seat] = action;
  if (G.picks.every((p) => p !== null)) resolve(G, random, 0);
  return undefined;
}

function bid({ G, playerID }, gems) {
  const seat = Number(playerID);
  const talks = G.negotiation;
  if (!talks || talks.toMove !== seat || !gems || !owns(G.players[seat].gems, gems) || count(gems) === 0) {
    return INVALID_MOVE;
  }
  const opponent = Number(Object.keys(talks.bids).find((s) => Number(s) !== seat));
  const current = talks.bids[opponent];
  if (current && !beats(gems, current)) return INVALID_MOVE;
  talks.bids[seat] = Object.fromEntries(COLOURS.map((c) => [c, gems[c]]));
  talks.toMove = opponent;
  return undefined;
}

function accept({ G, playerID, random }) {
  const seat = Number(playerID);
  const talks = G.negotiation;
  if (!talks || talks.toMove !== seat) return INVALID_MOVE;
  const bidder = Number(Object.keys(talks.bids).find((s) => Number(s) !== seat));
  const offer = talks.bids[bidder];
  if (!offer) return INVALID_MOVE;
  for (const c of COLOURS) {
    G.players[bidder].gems[c] -= offer[c];
    G.players[seat].gems[c] += offer[c];
  }
  perform(G, bidder, talks.action);
  resolve(G, random, talks.index + 1);
  return undefined;
}

const Basari = {
  name: 'basari',
  disableUndo: true,
  minPlayers: 3,
  maxPlayers: 3,
  setup: ({ ctx, random }, setupData) => {
    const G = {
      stages: (setupData && setupData.stages) || DATA.stages,
      stage: 1,
      over: false,
      stock: empty(),
      players: [],
      pile: random.Shuffle(DATA.bazaar_cards.slice()),
      picks: [],
      current: [],
      negotiation: null,
    };
    for (let seat = 0; seat < ctx.numPlayers; seat += 1) {
      G.players.push({
        gems: Object.fromEntries(COLOURS.map((c) => [c, DATA.starting_gems_per_colour])),
        workers: 0,
        points: 0,
      });
      G.picks.push(null);
    }
    for (const c of COLOURS) G.stock[c] = DATA.gems_per_colour - ctx.numPlayers * DATA.starting_gems_per_colour;
    deal(G);
    return G;
  },
  // Secret: the draw pile's order, and every pick until all have picked (B-12).
  playerView: ({ G, playerID }) => ({
    ...G,
    pile: G.pile.length,
    picks: G.picks.map((p, seat) => (String(seat) === playerID || p === null ? p : 'picked')),
  }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    pick: { move: pick, client: false },
    bid: { move: bid, client: false },
    accept: { move: accept, client: false },
  },
  endIf: ({ G }) => (G.over ? { points: G.players.map((p) => p.points) } : undefined),
};

module.exports = { Basari, COLOURS, ACTIONS, beats, count };
